import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and the generated publishers' `receive(subscriber:)`
// `@inlinable`), so the client module specializes the subscription, its inner subscribers and the upstream
// subjects' conduits for the concrete downstream instead of running generic code with runtime type lookups per
// value. The type-erased state machine is not generic and is not inlined.
/// The subscription shared by every zip publisher (`Zip`, `Zip3`, `Zip4`): it subscribes to each upstream through
/// an indexed inner subscriber, pairs their values in ``ZipStateMachine``, and hands the tuples, in the order they
/// formed, to one ``Emitter`` so the downstream sees one signal at a time however many threads the upstreams use.
///
/// ```swift
/// let zip = ZipSubscription(downstream: subscriber, upstreamCount: 2) { ($0[0] as! Int, $0[1] as! String) }
/// zip.start()
/// a.subscribe(zip.inner(0, Int.self))
/// b.subscribe(zip.inner(1, String.self))
/// ```
///
/// **Demand:** see ``ZipStateMachine``. Demand the downstream returns from `receive(_:)` is forwarded upstream like a
/// request (through ``DemandRelay``).
/// **Thread safety:** upstreams may deliver concurrently from any threads; `request` and `cancel` may be called from
/// any thread. No lock is held while calling an upstream or the downstream, so upstreams that are themselves wired
/// to the zip's output cannot deadlock it.
@usableFromInline
final class ZipSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, @unchecked Sendable {
    @usableFromInline let emitter: Emitter<DemandRelay<Downstream>>
    @usableFromInline let state: LockedBox<ZipStateMachine>
    @usableFromInline let makeOutput: ([Any]) -> Downstream.Input

    /// `makeOutput` turns one value of each upstream, in upstream order, into the downstream's tuple.
    @inlinable
    init(downstream: Downstream, upstreamCount: Int, makeOutput: @escaping ([Any]) -> Downstream.Input) {
        let state = LockedBox(tracking: ZipStateMachine(upstreamCount: upstreamCount))
        self.state = state
        self.makeOutput = makeOutput
        // Captures the state, not the subscription: the emitter must not keep the subscription alive.
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                ZipSubscription.requestUpstreams(more, state: state)
            },
            policy: .unbounded)
    }

    /// Delivers `receive(subscription:)` to the downstream. Call once, before subscribing the upstreams.
    @inlinable
    func start() {
        emitter.start(subscription: self)
    }

    /// The subscriber for upstream `index`, whose values are of type `Input`.
    @inlinable
    func inner<Input>(_ index: Int, _: Input.Type) -> Inner<Input> {
        Inner(zip: self, index: index)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        ZipSubscription.requestUpstreams(demand, state: state)
    }

    @inlinable
    static func requestUpstreams(_ demand: Subscribers.Demand, state: LockedBox<ZipStateMachine>) {
        let subscriptions = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("zip requesting from its upstreams")
        for subscription in subscriptions {
            subscription.request(demand)
        }
    }

    @inlinable
    func cancel() {
        let effects = state.withCriticalSection { $0.cancelled() }
        emitter.cancel()
        if let effects {
            perform(effects)
        }
    }

    @inlinable
    func upstream(_ index: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.subscribed(subscription, at: index) }) else {
            CalloutCheck.assertNoLockHeld("zip cancelling a late upstream")
            subscription.cancel()
            return
        }
        if demand > .none {
            CalloutCheck.assertNoLockHeld("zip requesting from a new upstream")
            subscription.request(demand)
        }
    }

    @inlinable
    func upstream(_ index: Int, received value: Any) {
        perform(state.withCriticalSection { $0.received(value, at: index) })
    }

    @inlinable
    func upstream(_ index: Int, completed completion: Subscribers.Completion<Downstream.Failure>) {
        switch completion {
        case .finished:
            perform(state.withCriticalSection { $0.finished(at: index) })
        case .failure:
            guard let effects = state.withCriticalSection({ $0.failed(at: index) }) else { return }
            perform(effects)
            emitter.complete(completion, order: .afterDemandedValues)
        }
    }

    // Runs after unlocking: the released values go out of scope here, outside the lock.
    @inlinable
    func perform(_ effects: ZipStateMachine.Effects) {
        CalloutCheck.assertNoLockHeld("zip cancelling upstreams")
        for subscription in effects.cancel {
            subscription.cancel()
        }
        if effects.startForwarding {
            forward()
        }
    }

    // Only one thread forwards at a time (the state machine hands the role over), so tuples reach the emitter in
    // the order they formed. Offering never waits for another thread: if another thread is delivering to the
    // downstream, the emitter queues the tuple for it and returns.
    @inlinable
    func forward() {
        while true {
            switch state.withCriticalSection({ $0.nextToForward() }) {
            case .value(let group):
                CalloutCheck.assertNoLockHeld("zip delivering a tuple")
                emitter.offer(makeOutput(group))
            case .finish:
                emitter.complete(.finished, order: .afterQueuedValues)
                return
            case .idle:
                return
            }
        }
    }

    @usableFromInline
    var description: String { "Zip" }

    /// The subscriber given to upstream `index`.
    @usableFromInline
    struct Inner<Input>: Subscriber, CustomStringConvertible {
        @usableFromInline typealias Failure = Downstream.Failure

        @usableFromInline let zip: ZipSubscription
        @usableFromInline let index: Int
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(zip: ZipSubscription, index: Int) {
            self.zip = zip
            self.index = index
        }

        @inlinable
        func receive(subscription: Subscription) {
            zip.upstream(index, subscribed: subscription)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            // Demand was forwarded up front; the emitter queues tuples the downstream cannot take yet.
            zip.upstream(index, received: input)
            return .none
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            zip.upstream(index, completed: completion)
        }

        @usableFromInline
        var description: String { "Zip" }
    }
}
