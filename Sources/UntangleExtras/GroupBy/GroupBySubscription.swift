import Untangle
import UntangleSync

/// The subscription of a groupBy: the subscriber it gives the upstream and the subscription it gives the outer
/// downstream, which receives the groups through one `Emitter`.
///
/// **Demand:** see ``GroupByStateMachine`` and ``Publisher/groupBy(_:)``.
/// **Thread safety:** the upstream delivers serially on any thread; group subscribers and the outer subscriber may
/// request and cancel from any thread. No lock is held while calling the key selector, the upstream, a group's
/// emitter or the downstream.
final class GroupBySubscription<Upstream: Publisher, Key: Hashable, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
where
    Downstream.Input == GroupedPublisher<Key, Upstream.Output, Upstream.Failure>, Downstream.Failure == Upstream.Failure
{
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure
    typealias Group = GroupedPublisher<Key, Upstream.Output, Upstream.Failure>

    private let state = LockedBox(tracking: GroupByStateMachine<Key, Group>())
    private let emitter: Emitter<Downstream>
    private let keySelector: (Upstream.Output) -> Key

    init(downstream: Downstream, keySelector: @escaping (Upstream.Output) -> Key) {
        emitter = Emitter(downstream: downstream, policy: .unbounded)
        self.keySelector = keySelector
    }

    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.subscribed(subscription) }) else {
            CalloutCheck.assertNoLockHeld("groupBy cancelling a second upstream subscription")
            subscription.cancel()
            return
        }
        emitter.start(subscription: self)
        if state.withCriticalSection({ !$0.isTerminated }) {
            CalloutCheck.assertNoLockHeld("groupBy requesting upstream")
            subscription.request(.unlimited)
        }
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        let key = keySelector(input)
        switch state.withCriticalSection({ $0.route(key) }) {
        case .drop:
            break
        case .existing(let group):
            group.emitter.offer(input)
        case .create(let id):
            // Built outside the lock (it allocates user-visible objects), registered right after; the upstream is
            // serialized, so no other value can route to this key in between.
            let group = Group(
                key: key,
                onSubscribe: { [weak self] in self?.state.withCriticalSection { $0.groupSubscribed(key, id: id) } },
                onCancel: { [weak self] in self?.groupCancelled(key, id: id) })
            // The outer subscriber may have cancelled since `route`: then the group is never published.
            guard state.withCriticalSection({ $0.add(group, key: key, id: id) }) else { break }
            group.emitter.offer(input)
            emitter.offer(group)
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let groups = state.withCriticalSection({ $0.upstreamCompleted() }) else { return }
        let order: EmitterCompletionOrder
        switch completion {
        case .finished: order = .afterQueuedValues
        case .failure: order = .afterDemandedValues
        }
        for group in groups {
            group.emitter.complete(completion, order: order)
        }
        emitter.complete(completion, order: order)
    }

    private func groupCancelled(_ key: Key, id: Int) {
        let upstream = state.withCriticalSection { $0.groupCancelled(key, id: id) }
        CalloutCheck.assertNoLockHeld("groupBy cancelling upstream after the last group left")
        upstream?.cancel()
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
    }

    func cancel() {
        emitter.cancel()
        let (unsubscribed, upstream) = state.withCriticalSection { $0.outerCancelled() }
        CalloutCheck.assertNoLockHeld("groupBy finishing unsubscribed groups")
        for group in unsubscribed {
            group.emitter.complete(.finished, order: .afterQueuedValues)
        }
        upstream?.cancel()
    }

    var description: String { "GroupBy" }
}
