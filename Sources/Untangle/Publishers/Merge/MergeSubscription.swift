import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and `MergeMany.receive(subscriber:)` `@inlinable`), so
// the client module specializes the whole merge, the inner subscribers and the upstream subjects' conduits for the
// concrete downstream. Unspecialized, every value ran generic code with a runtime metadata lookup per generic type
// touched (about 16,000 instructions per value through a merge of 8 subjects).
/// The subscription shared by every merge publisher (`Merge` … `Merge8`, `MergeMany`): it subscribes to each
/// upstream through an indexed inner subscriber, forwards demand to all of them, and funnels their values into one
/// ``Emitter`` so the downstream sees one signal at a time however many threads the upstreams deliver on.
///
/// **Demand:** see ``MergeStateMachine``.
/// **Thread safety:** upstreams may deliver concurrently from any threads; `request` and `cancel` may be called from
/// any thread. No lock is held while calling an upstream or the downstream, so upstreams that are themselves wired
/// to the merge's output cannot deadlock it.
@usableFromInline
final class MergeSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, @unchecked Sendable {
    @usableFromInline let emitter: Emitter<DemandRelay<Downstream>>
    @usableFromInline let state: LockedBox<MergeStateMachine>

    @inlinable
    init(downstream: Downstream, upstreamCount: Int) {
        let state = LockedBox(tracking: MergeStateMachine(upstreamCount: upstreamCount))
        self.state = state
        // Demand the subscriber returns from `receive(_:)` must reach the upstreams too, like requests do. The
        // closure captures the state, not the subscription, so the emitter does not keep the subscription alive.
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                MergeSubscription.forward(more, state: state)
            },
            policy: .unbounded)
    }

    @inlinable
    static func forward(_ demand: Subscribers.Demand, state: LockedBox<MergeStateMachine>) {
        let subscriptions = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("merge requesting from its upstreams")
        for subscription in subscriptions {
            subscription.request(demand)
        }
    }

    /// Subscribes `downstream` to the merge of `subscribeUpstreams`' publishers. `subscribeUpstreams` is called with
    /// a factory of inner subscribers; it must subscribe upstream `i` with `inner(i)` for each `i < upstreamCount`.
    @inlinable
    static func subscribe<Output>(
        _ downstream: Downstream, upstreamCount: Int,
        _ subscribeUpstreams: (_ inner: (Int) -> Inner<Output>) -> Void
    ) where Output == Downstream.Input {
        let merge = MergeSubscription(downstream: downstream, upstreamCount: upstreamCount)
        // `Inner` values are built with `inner(index)`; see `subscribe`'s documentation.
        merge.emitter.start(subscription: merge)
        guard upstreamCount > 0 else {
            merge.emitter.complete(.finished, order: .afterQueuedValues)
            return
        }
        subscribeUpstreams { Inner(merge: merge, index: $0) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        MergeSubscription.forward(demand, state: state)
    }

    @inlinable
    func cancel() {
        guard let subscriptions = state.withCriticalSection({ $0.terminate() }) else {
            emitter.cancel()
            return
        }
        emitter.cancel()
        for subscription in subscriptions {
            subscription.cancel()
        }
    }

    @inlinable
    func upstream(_ index: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.subscribed(subscription, at: index) }) else {
            subscription.cancel()
            return
        }
        if demand > .none {
            subscription.request(demand)
        }
    }

    @inlinable
    func upstream(_ index: Int, completed completion: Subscribers.Completion<Downstream.Failure>) {
        switch completion {
        case .finished:
            if state.withCriticalSection({ $0.finished(at: index) }) {
                emitter.complete(.finished, order: .afterQueuedValues)
            }
        case .failure:
            guard let others = state.withCriticalSection({ $0.terminate() }) else { return }
            for subscription in others {
                subscription.cancel()
            }
            emitter.complete(completion, order: .afterDemandedValues)
        }
    }

    @usableFromInline
    var description: String { "Merge" }

    /// The subscriber given to upstream `index`.
    @usableFromInline
    struct Inner<Output>: Subscriber, CustomStringConvertible where Output == Downstream.Input {
        @usableFromInline typealias Input = Output
        @usableFromInline typealias Failure = Downstream.Failure

        @usableFromInline let merge: MergeSubscription
        @usableFromInline let index: Int
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(merge: MergeSubscription, index: Int) {
            self.merge = merge
            self.index = index
        }

        @inlinable
        func receive(subscription: Subscription) {
            merge.upstream(index, subscribed: subscription)
        }

        @inlinable
        func receive(_ input: Output) -> Subscribers.Demand {
            // Demand was forwarded up front; the emitter queues anything the downstream cannot take yet.
            merge.emitter.offer(input)
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            merge.upstream(index, completed: completion)
        }

        @usableFromInline
        var description: String { "Merge" }
    }
}
