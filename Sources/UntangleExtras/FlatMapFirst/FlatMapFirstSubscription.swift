import Untangle
import UntangleSync

/// The subscription of a flatMapFirst: the subscriber it gives the upstream, the subscription it gives the
/// downstream, and the owner of one ``Inner`` per inner publisher. Inner values go through one `Emitter`.
///
/// **Demand:** see ``FlatMapFirstStateMachine``.
/// **Thread safety:** the upstream and the inners may deliver on any threads; `request`/`cancel` may be called from
/// any thread. No lock is held while calling a publisher, `transform` or the downstream.
final class FlatMapFirstSubscription<Upstream: Publisher, P: Publisher, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
where P.Output == Downstream.Input, P.Failure == Downstream.Failure, Upstream.Failure == P.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let state: LockedBox<FlatMapFirstStateMachine>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let transform: (Upstream.Output) -> P

    init(downstream: Downstream, transform: @escaping (Upstream.Output) -> P) {
        let state = LockedBox(tracking: FlatMapFirstStateMachine())
        self.state = state
        self.transform = transform
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                FlatMapFirstSubscription.forward(more, state: state)
            },
            policy: .unbounded)
    }

    private static func forward(_ demand: Subscribers.Demand, state: LockedBox<FlatMapFirstStateMachine>) {
        let inner = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("flatMapFirst forwarding demand to the active inner")
        inner?.request(demand)
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.upstreamSubscribed(subscription) }) else {
            CalloutCheck.assertNoLockHeld("flatMapFirst cancelling a second upstream subscription")
            subscription.cancel()
            return
        }
        emitter.start(subscription: self)
        if state.withCriticalSection({ !$0.isTerminated }) {
            CalloutCheck.assertNoLockHeld("flatMapFirst requesting upstream")
            subscription.request(.unlimited)
        }
    }

    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        guard let id = state.withCriticalSection({ $0.upstreamSent() }) else { return .none }
        CalloutCheck.assertNoLockHeld("flatMapFirst calling transform")
        transform(input).subscribe(Inner(parent: self, id: id))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            if state.withCriticalSection({ $0.upstreamFinished() }) {
                emitter.complete(.finished, order: .afterQueuedValues)
            }
        case .failure:
            fail(completion, cancelling: state.withCriticalSection { $0.terminate(upstreamFailed: true) })
        }
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        FlatMapFirstSubscription.forward(demand, state: state)
    }

    func cancel() {
        emitter.cancel()
        let subscriptions = state.withCriticalSection { $0.terminate() }
        CalloutCheck.assertNoLockHeld("flatMapFirst cancelling its sources")
        for subscription in subscriptions ?? [] {
            subscription.cancel()
        }
    }

    // MARK: Inners

    private func inner(_ id: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.innerSubscribed(id, subscription) }) else {
            CalloutCheck.assertNoLockHeld("flatMapFirst cancelling an unwanted inner subscription")
            subscription.cancel()
            return
        }
        if demand > .none {
            CalloutCheck.assertNoLockHeld("flatMapFirst requesting from the new inner")
            subscription.request(demand)
        }
    }

    private func inner(_ id: Int, sent value: P.Output) {
        if state.withCriticalSection({ $0.innerSent(id) }) {
            emitter.offer(value)
        }
    }

    private func inner(_ id: Int, completed completion: Subscribers.Completion<P.Failure>) {
        switch completion {
        case .finished:
            let (finish, released) = state.withCriticalSection { $0.innerFinished(id) }
            withExtendedLifetime(released) {}
            if finish {
                emitter.complete(.finished, order: .afterQueuedValues)
            }
        case .failure:
            fail(completion, cancelling: state.withCriticalSection { $0.terminate(failedInner: id) })
        }
    }

    private func fail(_ completion: Subscribers.Completion<P.Failure>, cancelling: [Subscription]?) {
        guard let subscriptions = cancelling else { return }
        CalloutCheck.assertNoLockHeld("flatMapFirst cancelling its sources after a failure")
        for subscription in subscriptions {
            subscription.cancel()
        }
        emitter.complete(completion, order: .afterDemandedValues)
    }

    var description: String { "FlatMapFirst" }

    /// The subscriber given to each inner publisher.
    private struct Inner: Subscriber, CustomStringConvertible {
        typealias Input = P.Output
        typealias Failure = P.Failure

        let parent: FlatMapFirstSubscription
        let id: Int
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            parent.inner(id, subscribed: subscription)
        }

        func receive(_ input: P.Output) -> Subscribers.Demand {
            parent.inner(id, sent: input)
            return .none
        }

        func receive(completion: Subscribers.Completion<P.Failure>) {
            parent.inner(id, completed: completion)
        }

        var description: String { "FlatMapFirst" }
    }
}
