import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and the generated publishers' `receive(subscriber:)`
// `@inlinable`), so the client module specializes the subscription, its inner subscribers and the upstream
// subjects' conduits for the concrete downstream instead of running generic code with runtime type lookups per
// value. The type-erased state machine is not generic.

/// The subscription of every zip publisher (`Zip` … `Zip4`), on the fan-in skeleton (``FanIn``: the downstream's
/// emitter behind its demand relay, the lock around the machine, the arrival of the upstreams' subscriptions, the
/// downstream's requests and cancel, and the callouts after unlocking): it subscribes to each upstream through an
/// indexed inner subscriber, lets its ``ZipStateMachine`` pair the oldest unconsumed values into groups, and hands
/// them, in the order they formed, to the emitter so the downstream sees one signal at a time however many threads
/// the upstreams use.
///
/// ```swift
/// let zip = ZipSubscription(downstream: subscriber, upstreamCount: 2) { ($0[0] as! Int, $0[1] as! String) }
/// zip.start()
/// a.subscribe(zip.inner(0, Int.self))
/// ```
///
/// **Demand:** see ``ZipStateMachine``. Demand the downstream returns from `receive(_:)` is forwarded upstream like a
/// request (through ``DemandRelay``).
/// **Thread safety:** upstreams may deliver concurrently from any threads; `request` and `cancel` may be called from
/// any thread. No lock is held while calling an upstream or the downstream.
@usableFromInline
final class ZipSubscription<Downstream: Subscriber>: FanInOwner, CustomStringConvertible, @unchecked Sendable {
    @usableFromInline let fanIn: FanIn<Downstream, ZipStateMachine>
    @usableFromInline let makeOutput: ([Any]) -> Downstream.Input
    /// The upstream delivering a group downstream, per thread (shared with the machine, which reads it under the
    /// lock when demand arrives).
    @usableFromInline let senders: CombiningSender

    /// `makeOutput` turns one value of each upstream, in upstream order, into the downstream's tuple; `finishRule`
    /// says when the zip finishes (Combine's rule unless UntangleExtras asks for RxSwift's).
    @inlinable
    init(
        downstream: Downstream, upstreamCount: Int, finishRule: ZipFinishRule = .whenAnUpstreamRunsOut,
        makeOutput: @escaping ([Any]) -> Downstream.Input
    ) {
        self.makeOutput = makeOutput
        let senders = CombiningSender()
        self.senders = senders
        fanIn = FanIn(
            downstream: downstream,
            machine: ZipStateMachine(upstreamCount: upstreamCount, senders: senders, finishRule: finishRule),
            demand: .forwarded)
    }

    /// Delivers `receive(subscription:)` to the downstream. Call once, before subscribing the upstreams.
    @inlinable
    func start() {
        fanIn.start(self)
    }

    /// The subscriber for upstream `index`, whose values are of type `Input`.
    @inlinable
    func inner<Input>(_ index: Int, _: Input.Type) -> Inner<Input> {
        Inner(owner: self, index: index)
    }

    // The downstream's requests go through the fan-in (FanInOwner's `request`). Demand that arrives on a thread where
    // an upstream is delivering a group (the downstream requesting, or returning demand, from inside that delivery)
    // goes back to that upstream as the return value of its `receive(_:)`, and to the others as a request, as
    // Combine's zip does: the machine's `request` asks `senders`.
    @inlinable
    func upstream(_ index: Int, subscribed subscription: Subscription) {
        fanIn.inner(index, subscribed: subscription)
    }

    /// Returns the demand for upstream `index` to return from its `receive(_:)`.
    @inlinable
    func upstream(_ index: Int, received value: Any) -> Subscribers.Demand {
        let effects = fanIn.withCriticalSection { $0.received(value, at: index) }
        // Only a value that makes this thread the forwarder can lead to a downstream callout on this thread.
        guard effects.startForwarding else {
            perform(effects)
            return .none
        }
        senders.enter(index)
        perform(effects)
        return senders.leave()
    }

    @inlinable
    func upstream(_ index: Int, completed completion: Subscribers.Completion<Downstream.Failure>) {
        switch completion {
        case .finished:
            perform(fanIn.withCriticalSection { $0.finished(at: index) })
        case .failure:
            // A failure ends the zip: no group is forwarded any more, so there is no forwarding loop to run.
            fanIn.perform(
                FanInEffects(ending: fanIn.withCriticalSection { $0.failed(at: index) }, completion: completion))
        }
    }

    // Runs after unlocking: FanIn's `perform` cancels and releases the values the machine let go of (their deinit is
    // user code); then, if this thread became the forwarder, it runs the forwarding loop. The per-value path, where
    // there is nothing to cancel or release, calls only the loop.
    @inlinable
    func perform(_ effects: ZipStateMachine.Effects) {
        if !effects.cancel.isEmpty || !effects.release.isEmpty {
            fanIn.perform(FanInEffects(cancel: effects.cancel, released: effects.release))
        }
        if effects.startForwarding {
            forward()
        }
    }

    // Why this stays here and is not FanIn's: a fan-in offers each inner's value to the emitter on the thread that
    // received it, while zip forms groups under the lock and one thread at a time (the forwarder) hands them over, in
    // the order they formed. The loop is shared with combineLatest (``CombiningUpstreams/forward(to:next:)``);
    // the group is taken out under the lock and turned into the downstream's tuple after unlocking.
    @inlinable
    func forward() {
        CombiningUpstreams.forward(to: fanIn.emitter) {
            switch fanIn.withCriticalSection({ $0.nextToForward() }) {
            case .value(let group): return .value(makeOutput(group))
            case .finish: return .finish
            case .idle: return .idle
            }
        }
    }

    @usableFromInline
    var description: String { "Zip" }

    /// The subscriber given to upstream `index`: as thin as ``FanInInner`` (the upstreams' values differ in type, so
    /// one per value type).
    @usableFromInline
    struct Inner<Input>: Subscriber, CustomStringConvertible {
        @usableFromInline typealias Failure = Downstream.Failure

        @usableFromInline let owner: ZipSubscription
        @usableFromInline let index: Int
        @usableFromInline let combineIdentifier = CombineIdentifier()

        @inlinable
        init(owner: ZipSubscription, index: Int) {
            self.owner = owner
            self.index = index
        }

        @inlinable
        func receive(subscription: Subscription) {
            owner.upstream(index, subscribed: subscription)
        }

        @inlinable
        func receive(_ input: Input) -> Subscribers.Demand {
            // Demand was forwarded up front; the emitter queues tuples the downstream cannot take yet. Demand from
            // the downstream during this delivery may come back here (see `request`).
            owner.upstream(index, received: input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            owner.upstream(index, completed: completion)
        }

        @usableFromInline
        var description: String { "Zip" }
    }
}
