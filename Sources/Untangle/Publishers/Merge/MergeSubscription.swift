import UntangleSync

/// The subscription shared by every merge publisher (`Merge` … `Merge8`, `MergeMany`): it subscribes to each
/// upstream through an indexed inner subscriber, forwards demand to all of them, and funnels their values into one
/// ``Emitter`` so the downstream sees one signal at a time however many threads the upstreams deliver on.
///
/// **Demand:** see ``MergeStateMachine``.
/// **Thread safety:** upstreams may deliver concurrently from any threads; `request` and `cancel` may be called from
/// any thread. No lock is held while calling an upstream or the downstream, so upstreams that are themselves wired
/// to the merge's output cannot deadlock it.
final class MergeSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, @unchecked Sendable {
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let state: LockedBox<MergeStateMachine>

    private init(downstream: Downstream, upstreamCount: Int) {
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

    private static func forward(_ demand: Subscribers.Demand, state: LockedBox<MergeStateMachine>) {
        let subscriptions = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("merge requesting from its upstreams")
        for subscription in subscriptions {
            subscription.request(demand)
        }
    }

    /// Subscribes `downstream` to the merge of `subscribeUpstreams`' publishers. `subscribeUpstreams` is called with
    /// a factory of inner subscribers; it must subscribe upstream `i` with `inner(i)` for each `i < upstreamCount`.
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

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        MergeSubscription.forward(demand, state: state)
    }

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

    fileprivate func upstream(_ index: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.subscribed(subscription, at: index) }) else {
            subscription.cancel()
            return
        }
        if demand > .none {
            subscription.request(demand)
        }
    }

    fileprivate func upstream(_ index: Int, completed completion: Subscribers.Completion<Downstream.Failure>) {
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

    var description: String { "Merge" }

    /// The subscriber given to upstream `index`.
    struct Inner<Output>: Subscriber, CustomStringConvertible where Output == Downstream.Input {
        typealias Input = Output
        typealias Failure = Downstream.Failure

        let merge: MergeSubscription
        let index: Int
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            merge.upstream(index, subscribed: subscription)
        }

        func receive(_ input: Output) -> Subscribers.Demand {
            // Demand was forwarded up front; the emitter queues anything the downstream cannot take yet.
            merge.emitter.offer(input)
            return .none
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            merge.upstream(index, completed: completion)
        }

        var description: String { "Merge" }
    }
}
