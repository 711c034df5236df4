import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and `Publishers.FlatMap.receive(subscriber:)`
// `@inlinable`), so the client module specializes the subscription, the inners, the state machine and the upstream's
// conduit for the concrete types instead of running generic code with runtime type lookups per value.
/// The subscription of a flatMap: the subscriber it gives the upstream, the subscription it gives the downstream,
/// and the owner of one ``FlatMapInner`` per inner publisher, on the ``FanIn`` skeleton. Every inner's values go
/// through the fan-in's one ``Emitter``, so the downstream sees one signal at a time however many threads the inners
/// deliver on.
///
/// The state machine (``FlatMapStateMachine``) does the demand accounting and keeps the values that wait for demand
/// (a counting-demand fan-in: the emitter is asked for `.unlimited` once, before the downstream's subscription, and
/// only serializes: a value reaches it only once the machine has charged it to the downstream's demand). Every
/// decision is taken with `fanIn.withCriticalSection` and its callouts made through the skeleton (`fanIn.perform`, the transform
/// through `fanIn.callOut`, the inner's `subscribe` through `fanIn.subscribe`); values go straight to `fanIn.offer`.
///
/// **Demand:** see ``FlatMapStateMachine``.
/// **Thread safety:** the upstream and the inners may deliver concurrently from any threads; `request` and `cancel`
/// may be called from any thread. Every decision is taken under the state lock and acted on after unlocking; the
/// lock is never held while calling the transform, an upstream, an inner or the downstream.
@usableFromInline
final class FlatMapSubscription<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where
    NewPublisher.Output == Downstream.Input, NewPublisher.Failure == Downstream.Failure,
    Upstream.Failure == Downstream.Failure
{
    @usableFromInline typealias Input = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure
    @usableFromInline typealias Machine = FlatMapStateMachine<Downstream.Input>

    @usableFromInline let fanIn: FanIn<Downstream, Machine>
    @usableFromInline let transform: (Upstream.Output) -> NewPublisher
    // See `receiveJust`: touched only on the upstream's serialized signal path. `@exclusivity(unchecked)`: no
    // run-time access check per value (a class `var` otherwise pays `swift_beginAccess` on every read).
    @exclusivity(unchecked) @usableFromInline var steadyJust = false

    @inlinable
    init(
        downstream: Downstream, maxPublishers: Subscribers.Demand,
        transform: @escaping (Upstream.Output) -> NewPublisher
    ) {
        self.transform = transform
        // Demand the downstream returns from `receive(_:)` is the flatMap's to count, like requests. The relay
        // reaches the subscription through a link object rather than capturing it: the emitter must not keep the
        // subscription alive, and a `[weak self]` capture would give the subscription a weak-reference side table,
        // which sends every retain and release of it down the runtime's slow path.
        let link = FlatMapLink<Upstream, NewPublisher, Downstream>()
        fanIn = FanIn(
            downstream: downstream, machine: Machine(maxPublishers: maxPublishers),
            demand: .counted(by: { link.parent?.downstreamAsked($0) }))
        link.parent = self
    }

    /// Gives the downstream its subscription; Apple's Combine does so before subscribing to the upstream.
    @inlinable
    func start() {
        fanIn.start(self)
    }

    // MARK: Upstream

    @inlinable
    func receive(subscription: Subscription) {
        // `maxPublishers` as it is, `.none` included, as Apple's Combine asks.
        guard let demand = fanIn.withCriticalSection({ $0.upstreamSubscribed(subscription) }) else {
            fanIn.perform(FanInEffects(cancelOne: subscription))
            return
        }
        fanIn.perform(FanInEffects(requestOne: subscription, demand: demand))
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        if FlatMapSubscription.innersAreJust {
            return receiveJust(input)
        }
        guard let id = fanIn.withCriticalSection({ $0.innerCreated() }) else { return .none }
        fanIn.subscribe(transform(input), FlatMapInner(parent: self, id: id))
        // More upstream demand is requested when an inner finishes (bounded maxPublishers) or was unlimited.
        return .none
    }

    // MARK: Just inners

    /// Whether the inner publishers are `Just` (or `Just` with `setFailureType`): a constant, folded away when the
    /// client module specializes this class.
    @inlinable
    static var innersAreJust: Bool {
        NewPublisher.self == Just<Downstream.Input>.self
            || NewPublisher.self == Publishers.SetFailureType<Just<Downstream.Input>, Downstream.Failure>.self
    }

    @inlinable
    static func justOutput(_ publisher: NewPublisher) -> Downstream.Input {
        if let just = publisher as? Just<Downstream.Input> {
            return just.output
        }
        return (publisher as! Publishers.SetFailureType<Just<Downstream.Input>, Downstream.Failure>).upstream.output
    }

    // Performance: `flatMap { Just($0) }` without an inner subscription. Subscribing a `Just` costs two objects
    // (the inner subscriber and the Just's subscription) and four lock round-trips (created, subscribed, delivered,
    // finished); a Just delivers its value the moment it is asked (the flatMap asks every inner for one value) and
    // finishes right after, so its whole lifecycle is one transition of the state machine (`justValue`): the value
    // goes straight to the emitter, or to the buffer, exactly where the inner's delivery would have put it, and the
    // upstream is asked for one more under a bounded maxPublishers, as the Just's finish would have asked.
    //
    // `steadyJust` (once demand and maxPublishers are both unlimited and nothing waits) skips even that transition:
    // nothing it decides can change any more except termination, and after termination (cancel or failure) the
    // emitter is already cancelled or completed, so it drops the value; the only difference is that the transform
    // may run for a value the upstream sends after the end, which a value racing the end could do anyway.
    // `steadyJust` is read and written only here, on the upstream's serialized signal path, so it needs no lock.
    @inlinable
    func receiveJust(_ input: Upstream.Output) -> Subscribers.Demand {
        if steadyJust {
            fanIn.emitter.offer(FlatMapSubscription.justOutput(fanIn.callOut { transform(input) }))
            return .none
        }
        guard fanIn.withCriticalSection({ $0.isRunning }) else { return .none }
        let value = FlatMapSubscription.justOutput(fanIn.callOut { transform(input) })
        let requestUpstream: Subscription?
        switch fanIn.withCriticalSection({ $0.justValue(value) }) {
        case .ignore:
            return .none
        case .deliver(let upstream, let steady):
            steadyJust = steady
            fanIn.emitter.offer(value)
            requestUpstream = upstream
        case .buffered(let upstream):
            requestUpstream = upstream
        }
        if requestUpstream != nil {
            fanIn.perform(FanInEffects(requestOne: requestUpstream, demand: .max(1)))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        let thread = ThreadID.current
        switch completion {
        case .finished:
            let (finish, released) = fanIn.withCriticalSection { $0.upstreamFinished(on: thread) }
            fanIn.perform(FanInEffects(released: released, completion: finish ? .finished : nil))
        case .failure:
            guard let ending = fanIn.withCriticalSection({ $0.upstreamFailed(on: thread) }) else { return }
            fanIn.perform(FanInEffects(ending: ending))
            fanIn.withCriticalSection { $0.upstreamFailureCancellationsDone() }
            fanIn.perform(FanInEffects(completion: completion))
        }
    }

    // MARK: Downstream

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        downstreamAsked(demand)
    }

    /// A request, or demand the downstream returned from `receive(_:)`.
    @inlinable
    func downstreamAsked(_ demand: Subscribers.Demand) {
        let action = fanIn.withCriticalSection { $0.downstreamAsked(demand) }
        if action.drain {
            drainBuffer()
        }
        if !action.unleash.isEmpty {
            fanIn.perform(FanInEffects(request: action.unleash, demand: .unlimited))
        }
    }

    // Only one thread drains at a time (the machine's `drain` phase), and while it does every new inner value joins
    // the buffer, so an inner's values keep their order. A request or returned demand made meanwhile (from this
    // thread's callouts or any other thread) only adds demand, which this loop then uses: no recursion.
    @inlinable
    func drainBuffer() {
        while true {
            switch fanIn.withCriticalSection({ $0.nextBuffered() }) {
            case .deliver(let value, let replenish):
                fanIn.emitter.offer(value)
                if replenish != nil {
                    fanIn.perform(FanInEffects(requestOne: replenish, demand: .max(1)))
                }
            case .stop:
                return
            case .finish:
                fanIn.perform(FanInEffects(completion: .finished))
                return
            }
        }
    }

    @inlinable
    func cancel() {
        fanIn.cancel()
    }

    // MARK: Inners

    @inlinable
    func inner(_ id: Int, finished completion: Subscribers.Completion<Downstream.Failure>) {
        switch completion {
        case .finished:
            let (action, released) = fanIn.withCriticalSection { $0.innerFinished(id) }
            switch action {
            case .none:
                fanIn.perform(FanInEffects(released: released))
            case .requestOneMore(let upstream):
                fanIn.perform(FanInEffects(requestOne: upstream, demand: .max(1), released: released))
            case .finish:
                fanIn.perform(FanInEffects(released: released, completion: .finished))
            }
        case .failure:
            fanIn.perform(
                FanInEffects(ending: fanIn.withCriticalSection { $0.innerFailed(id) }, completion: completion))
        }
    }

    @usableFromInline
    var description: String { "FlatMap" }

    @usableFromInline
    var playgroundDescription: Any { description }

    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: []) }
}

/// How the demand relay inside a flatMap's emitter reaches the flatMap's subscription without keeping it alive.
///
/// **Thread safety:** `parent` is set once, in the subscription's init, before the subscription is shared.
@usableFromInline
final class FlatMapLink<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>
where
    NewPublisher.Output == Downstream.Input, NewPublisher.Failure == Downstream.Failure,
    Upstream.Failure == Downstream.Failure
{
    // Unowned and unsafe: the relay runs only while the emitter delivers, and the emitter delivers only from inside
    // a call on the subscription (an inner's, the upstream's or the downstream's), which holds it alive.
    @usableFromInline unowned(unsafe) var parent: FlatMapSubscription<Upstream, NewPublisher, Downstream>?

    @inlinable
    init() {}
}

/// The subscriber flatMap gives each inner publisher.
///
/// **Demand:** the inner is asked for one value when it subscribes (`.unlimited` once the downstream's demand is);
/// each value delivered at once returns one more, each value that had to wait asks one more when it is delivered
/// (see ``FlatMapStateMachine``).
/// **Thread safety:** its `receive` methods are called by one inner publisher, serialized (the contract); they may
/// run on any thread, concurrently with other inners.
@usableFromInline
final class FlatMapInner<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where
    NewPublisher.Output == Downstream.Input, NewPublisher.Failure == Downstream.Failure,
    Upstream.Failure == Downstream.Failure
{
    @usableFromInline typealias Input = NewPublisher.Output
    @usableFromInline typealias Failure = NewPublisher.Failure

    @usableFromInline let parent: FlatMapSubscription<Upstream, NewPublisher, Downstream>
    @usableFromInline let id: Int
    // Touched only on this inner's own serialized signal path. Once the downstream's demand is unlimited and nothing
    // waits in the buffer, that stays so, and the per-value bookkeeping (a lock round-trip) can be skipped.
    @exclusivity(unchecked) @usableFromInline var steady = false

    @inlinable
    init(parent: FlatMapSubscription<Upstream, NewPublisher, Downstream>, id: Int) {
        self.parent = parent
        self.id = id
    }

    @inlinable
    func receive(subscription: Subscription) {
        parent.fanIn.inner(id, subscribed: subscription)
    }

    @inlinable
    func receive(_ input: NewPublisher.Output) -> Subscribers.Demand {
        guard steady else { return receiveCounted(input) }
        // Performance: borrowed (`RawReference.borrow`: the inner holds its parent for as long as it runs), so the
        // emitter's storage is not retained and released around every value.
        _ = RawReference.borrow(parent) { $0.fanIn.emitter.offer(input) }
        return .none
    }

    // Performance: kept out of line, so the steady path above stays small enough to inline into the inner
    // publisher's delivery.
    /// A value while the demand is bounded or values wait: the state machine decides.
    @inlinable
    @inline(never)
    func receiveCounted(_ input: NewPublisher.Output) -> Subscribers.Demand {
        var more = Subscribers.Demand.none
        switch parent.fanIn.withCriticalSection({ $0.innerValue(id, input) }) {
        case .ignore, .buffered:
            return .none
        case .deliverReplenishing:
            more = .max(1)
        case .deliverUnlimited(let steady):
            self.steady = steady
        }
        _ = RawReference.borrow(parent) { $0.fanIn.emitter.offer(input) }
        return more
    }

    @inlinable
    func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
        parent.inner(id, finished: completion)
    }

    @usableFromInline
    var description: String { "FlatMap" }

    @usableFromInline
    var playgroundDescription: Any { description }

    @usableFromInline
    var customMirror: Mirror { Mirror(self, children: ["parentSubscription": parent.combineIdentifier]) }
}
