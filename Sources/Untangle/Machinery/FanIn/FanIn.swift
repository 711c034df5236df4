import UntangleSync

/// What a fan-in's pure state machine answers: the events the ``FanIn`` skeleton routes to it. Only the downstream's
/// cancel concerns every fan-in; the other requirements have defaults for the machines that never see those events,
/// or whose sources are numbered up front (a default that is reached anyway traps, naming the machine).
///
/// - ``upstreams``: the sources, for a machine whose sources are numbered up front (merge, amb); the defaults of
///   ``innerSubscribed(_:_:)`` and ``request(_:)`` use them (default: traps; a machine that keeps none answers
///   those two itself, or is never asked).
/// - ``innerSubscribed(_:_:)``: inner `id`'s subscription arrived (``FanIn/inner(_:subscribed:)``); by default the
///   upstreams admit it (asked for the total so far, or cancelled once that source or the machine ended).
/// - ``cancelled()``: the downstream cancelled (``FanIn/cancel()``).
/// - ``request(_:)``: the downstream asked for more, or returned demand from `receive(_:)`, under the
///   ``FanInDemand/forwarded`` and ``FanInDemand/routedByDownstream`` routings; by default forwarded to every
///   subscribed upstream (a machine that counts the downstream's demand itself is never asked).
/// - ``decidesValues`` and ``innerValue(_:)``: whether an inner's value is delivered (``FanIn/offer(_:from:)``);
///   by default every value is (`decidesValues` false, unless ``settlesOnFirstDelivery``: the value path takes no
///   lock).
/// - ``innerCompleted(_:_:)``: an inner completed (``FanIn/complete(_:_:)``).
/// - ``name``: the operator's name, a ``FanInSubscription``'s description (by default the type's name without
///   `StateMachine`: `MergeStateMachine` describes itself as `Merge`).
///
/// ```swift
/// struct FirstSourceWins: FanInStateMachine {
///     mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? { ... }
///     mutating func request(_ demand: Subscribers.Demand) -> [Subscription] { ... }
///     mutating func cancelled() -> FanInEnding? { ... }
/// }
/// ```
///
/// **Demand:** `innerSubscribed` returns the demand a new inner is asked for; `request` names the subscriptions the
/// downstream's new demand is forwarded to.
/// **Thread safety:** none: the skeleton calls it only under its lock; it must never call out.
@usableFromInline
package protocol FanInStateMachine {
    /// The sources, numbered up front, with where each one stands and the demand asked of them so far.
    var upstreams: FanInUpstreams { get set }

    /// Inner `id`'s subscription arrived: returns the demand to request from it (`.none`: nothing yet), or nil to
    /// cancel it instead (unwanted, late, or a second subscription).
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand?

    /// The downstream cancelled: ends the machine and returns what to cancel and release after unlocking (nil: it
    /// had already ended).
    mutating func cancelled() -> FanInEnding?

    /// The downstream asked for `demand` more: returns the subscriptions to forward it to (none once ended).
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription]

    /// Whether ``innerValue(_:)`` decides each inner value under the lock; false: every value is delivered
    /// without taking it (merge's per-value path).
    static var decidesValues: Bool { get }

    /// Whether, once ``innerValue(_:)`` delivered a value of an inner, it delivers every later value of that inner
    /// until the end (amb's winner): ``FanIn/offer(_:from:)`` then delivers them without taking the lock, the end
    /// being the emitter's to enforce (it drops what comes after a cancel or a completion).
    static var settlesOnFirstDelivery: Bool { get }

    /// Inner `id` sent a value: deliver it or drop it (and what to cancel because of it).
    mutating func innerValue(_ id: Int) -> FanInValue

    /// Inner `id` completed: what to cancel, release and complete downstream.
    mutating func innerCompleted<Failure>(
        _ id: Int, _ completion: Subscribers.Completion<Failure>
    ) -> FanInEffects<Failure>

    /// The operator's name.
    static var name: String { get }
}

extension FanInStateMachine {
    /// Traps: this machine keeps no numbered upstreams, so it answers ``innerSubscribed(_:_:)`` and ``request(_:)``
    /// itself (or, counting the downstream's demand, is never asked for `request`).
    @inlinable
    package var upstreams: FanInUpstreams {
        get { Self.keepsNoUpstreams() }
        set { Self.keepsNoUpstreams() }
    }

    @usableFromInline
    @inline(never)
    static func keepsNoUpstreams() -> Never {
        impossibleEvent("\(Self.self): upstreams: this machine keeps none, so it answers innerSubscribed and request")
    }

    /// The upstreams admit it: the demand asked of them so far, or nil (cancel it) once that upstream or the machine
    /// ended, or for a second subscription.
    @inlinable
    package mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        upstreams.admit(subscription, at: id)
    }

    /// Every subscribed upstream (none once the machine ended them all).
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        upstreams.request(demand)
    }

    /// ``settlesOnFirstDelivery``: otherwise every inner value is delivered without taking the lock.
    @inlinable
    package static var decidesValues: Bool { settlesOnFirstDelivery }

    /// False: each inner value is decided under the lock (when ``decidesValues`` is true).
    @inlinable
    package static var settlesOnFirstDelivery: Bool { false }

    /// Traps: asked only when ``decidesValues`` is true.
    @inlinable
    package mutating func innerValue(_ id: Int) -> FanInValue {
        impossibleEvent("\(Self.self): innerValue(\(id)): asked only of a machine whose decidesValues is true")
    }

    /// Traps: this machine's operator handles its inners' completions itself.
    @inlinable
    package mutating func innerCompleted<Failure>(
        _ id: Int, _ completion: Subscribers.Completion<Failure>
    ) -> FanInEffects<Failure> {
        impossibleEvent("\(Self.self): innerCompleted(\(id), \(completion)): the operator completes its inners itself")
    }

    // Inner ids are handed out by the machine itself before the inner is subscribed (a creation number, a
    // generation): a signal for any other id is an inconsistency.
    /// Traps unless `id` is one of the inner ids this machine handed out (`issued`); `event` names the signal.
    @inlinable
    package func checkIssued(_ id: Int, _ issued: Range<Int>, _ event: StaticString) {
        if !issued.contains(id) {
            Self.neverIssued(id, event)
        }
    }

    @usableFromInline
    @inline(never)
    static func neverIssued(_ id: Int, _ event: StaticString) -> Never {
        impossibleEvent("\(Self.self): \(event)(\(id)) for an inner it never handed out")
    }

    /// The type's name without its `StateMachine` suffix.
    @inlinable
    package static var name: String {
        let type = String(describing: Self.self)
        return type.hasSuffix("StateMachine") ? String(type.dropLast("StateMachine".count)) : type
    }
}

/// What becomes of the downstream's demand in a ``FanIn``: the routing chosen when the skeleton is built.
///
/// ```swift
/// let fanIn = FanIn(downstream: subscriber, machine: MergeStateMachine(upstreamCount: 2), demand: .forwarded)
/// ```
///
/// **Demand:** as each case says.
/// **Thread safety:** a value.
@usableFromInline
package enum FanInDemand {
    /// Requests, and demand the downstream returns from `receive(_:)`, go to the subscriptions the machine's
    /// ``FanInStateMachine/request(_:)`` names (merge, amb, zip, combineLatest, flatMapFirst).
    case forwarded
    /// The machine counts the downstream's demand (flatMap: values wait in its buffer): the emitter is asked for
    /// `.unlimited` once and only serializes; demand the downstream returns from `receive(_:)` is passed to the
    /// closure (on the delivering thread, with no lock held), and the operator's own `request(_:)` decides on
    /// requests.
    case counted(by: (Subscribers.Demand) -> Void)
    /// Requests go where the machine's `request(_:)` says, as `.forwarded`; demand returned from `receive(_:)` is
    /// routed by the downstream the skeleton is given, a wrapper the operator builds around the real one
    /// (switchToLatest's, which knows which inner sent the value).
    case routedByDownstream
}

/// What a fan-in's machine lets go of when it ends: the sources to cancel and what to release, both after
/// unlocking (a release may run user code: a value's or a subscription's deinit).
///
/// ```swift
/// return FanInEnding(cancel: upstreams.endAll(), released: bufferedValues)
/// ```
///
/// **Demand:** none.
/// **Thread safety:** a value: built under the lock, acted on after it.
@usableFromInline
package struct FanInEnding {
    /// Subscriptions to cancel.
    @usableFromInline package var cancel: [Subscription]
    /// One more subscription to cancel, after `cancel`: a replaced or refused subscription, named without an array
    /// (switchToLatest replaces its inner on every outer value).
    @usableFromInline package var cancelOne: Subscription?
    /// What the machine let go of, released after unlocking.
    @usableFromInline package var released: Any?

    /// Cancels `cancel` and releases `released`.
    @inlinable
    package init(cancel: [Subscription], released: Any? = nil) {
        self.cancel = cancel
        self.released = released
    }
}

/// What becomes of an inner's value (``FanInStateMachine/innerValue(_:)``).
///
/// ```swift
/// return winner == id ? .deliver : .drop
/// ```
///
/// **Demand:** a dropped value uses none of the downstream's demand.
/// **Thread safety:** a value.
@usableFromInline
package enum FanInValue {
    /// Deliver it.
    case deliver
    /// Drop it (a replaced, losing or ended source).
    case drop
    /// Cancel these subscriptions (after unlocking), then deliver it: the value decided a race.
    case deliverCancelling([Subscription])

    /// Whether the value is delivered.
    @inlinable
    package var delivers: Bool {
        if case .drop = self { return false }
        return true
    }
}

/// The callouts one decision of a fan-in needs, made by ``FanIn/perform(_:)`` after the lock is released, in this
/// order: cancel, request, release, complete.
///
/// ```swift
/// let effects = fanIn.withCriticalSection { machine in FanInEffects(ending: machine.end(), completion: failure) }
/// fanIn.perform(effects)
/// ```
///
/// **Demand:** `demand` is requested from each of `request` and from `requestOne`, as it is (`.none` included:
/// flatMap asks its upstream for `maxPublishers` even when that is `.none`, as Apple's Combine does).
/// **Thread safety:** a value: built under the lock, performed after it.
@usableFromInline
package struct FanInEffects<Failure: Error> {
    /// Subscriptions to cancel.
    @usableFromInline package var cancel: [Subscription]
    /// One more subscription to cancel, after `cancel`: a replaced or refused subscription, named without an array
    /// (switchToLatest replaces its inner on every outer value).
    @usableFromInline package var cancelOne: Subscription?
    /// Subscriptions to request `demand` from.
    @usableFromInline package var request: [Subscription]
    /// One more subscription to request `demand` from, after `request`: the per-value paths (an inner asked for one
    /// more value) name their one subscription here, which allocates no array.
    @usableFromInline package var requestOne: Subscription?
    /// How much to request from each of `request` and from `requestOne`.
    @usableFromInline package var demand: Subscribers.Demand
    /// Something the machine let go of (a completed subscription), released after unlocking: its deinit may be
    /// user code.
    @usableFromInline package var released: Any?
    /// The completion for the downstream: `.finished` after the queued values, a failure after the demanded ones.
    @usableFromInline package var completion: Subscribers.Completion<Failure>?

    /// Effects with the given parts; the defaults do nothing.
    @inlinable
    package init(
        cancel: [Subscription] = [], cancelOne: Subscription? = nil, request: [Subscription] = [],
        requestOne: Subscription? = nil, demand: Subscribers.Demand = .none, released: Any? = nil,
        completion: Subscribers.Completion<Failure>? = nil
    ) {
        self.cancel = cancel
        self.cancelOne = cancelOne
        self.request = request
        self.requestOne = requestOne
        self.demand = demand
        self.released = released
        self.completion = completion
    }

    /// The effects of an ending (nil: nothing, the machine had already ended), then `completion`.
    @inlinable
    package init(ending: FanInEnding?, completion: Subscribers.Completion<Failure>? = nil) {
        guard let ending else {
            self.init()
            return
        }
        self.init(cancel: ending.cancel, released: ending.released, completion: completion)
    }
}

// Performance: `@usableFromInline` with `@inlinable` members, stored inline (a struct of two `let`s) in the
// operator's subscription: a value reaches the emitter through the subscription's own `let`s, as before the
// skeleton existed, so merge's per-value path costs nothing more. The lock is always a `LockedBoxWithWord`: it costs
// what a `LockedBox` does, and combineLatest keeps its forwarder in the word (``CombiningForwarder``).
/// The skeleton of every fan-in operator (merge, flatMap, switchToLatest, zip, combineLatest, amb, flatMapFirst,
/// retry(when:)): the downstream's ``Emitter`` behind a ``DemandRelay``, the lock around the operator's pure
/// ``FanInStateMachine``, the downstream's `request`/`cancel` routed as the operator's ``FanInDemand`` says, the
/// arrival of indexed inner subscriptions (``FanInInner``), and ``perform(_:)``, the one place that makes the
/// callouts a decision needs.
///
/// An operator's subscription keeps one `FanIn` in a `let`, answers its inners' signals by deciding under the lock
/// (``withCriticalSection(_:)``) and performing the result, and offers values to ``emitter`` (or with ``offer(_:from:)``, which
/// asks the machine first). Every callout goes through the skeleton, which checks in debug builds that no library
/// lock is held: ``perform(_:)`` (upstream requests and cancels, releases, the downstream's completion), the
/// ``emitter`` (values; it checks its own callouts), ``start(_:)``, ``subscribe(_:_:)`` and ``callOut(_:)``.
/// ``FanInSubscription`` is the whole subscription for sources given up front.
///
/// ```swift
/// let fanIn = FanIn(downstream: subscriber, machine: MergeStateMachine(upstreamCount: 2), demand: .forwarded)
/// fanIn.start(self)
/// fanIn.complete(0, .finished)
/// ```
///
/// **Demand:** as the ``FanInDemand`` routing says; values beyond the downstream's demand wait in the emitter
/// (`.unbounded`), so the buffer is bounded by what the machine requested.
/// **Thread safety:** every method may be called from any thread; the machine is touched only under the lock, and
/// every callout (upstream request/cancel, downstream signals, releases) happens after it is released.
@usableFromInline
package struct FanIn<Downstream: Subscriber, Machine: FanInStateMachine>: @unchecked Sendable {
    /// The downstream's serializing emitter.
    @usableFromInline package let emitter: Emitter<DemandRelay<Downstream>>
    /// The operator's state machine, under its lock (the word beside it is combineLatest's forwarder).
    @usableFromInline package let state: LockedBoxWithWord<Machine>

    /// A skeleton around `machine` delivering to `downstream`, the downstream's demand routed as `demand` says.
    @inlinable
    package init(downstream: Downstream, machine: Machine, demand: FanInDemand) {
        let state = LockedBoxWithWord(tracking: machine)
        self.state = state
        // The relay's closures capture the state, not the operator's subscription, so the emitter does not keep the
        // subscription alive.
        switch demand {
        case .forwarded:
            emitter = DemandRelay(downstream: downstream) { more in FanIn.forward(more, state: state) }.emitter()
        case .counted(let onDemand):
            emitter = DemandRelay(downstream: downstream, onReturnedDemand: onDemand).emitter()
            // The machine counts the demand: the emitter only serializes, and a value reaches it only once the
            // machine has charged it to the downstream's demand.
            emitter.request(.unlimited)
        case .routedByDownstream:
            emitter = DemandRelay(downstream: downstream) { _ in }.emitter()
        }
    }

    @inlinable
    static func forward(_ demand: Subscribers.Demand, state: LockedBoxWithWord<Machine>) {
        let subscriptions = state.withCriticalSection { machine, _ in machine.request(demand) }
        UpstreamCalls.request(demand, from: subscriptions, operator: "fan-in")
    }

    /// Runs `body` on the machine under the lock; make no callout in it.
    @inlinable
    package func withCriticalSection<Result>(_ body: (inout Machine) -> Result) -> Result {
        state.withCriticalSection { machine, _ in body(&machine) }
    }

    /// Makes the callouts `effects` names, with no lock held: cancels, requests, releases, then completes the
    /// downstream (`.finished` after the queued values, a failure after the demanded ones).
    @inlinable
    package func perform(_ effects: FanInEffects<Downstream.Failure>) {
        if !effects.cancel.isEmpty {
            UpstreamCalls.cancel(effects.cancel, operator: "fan-in")
        }
        UpstreamCalls.cancel(effects.cancelOne, operator: "fan-in")
        if !effects.request.isEmpty {
            UpstreamCalls.request(effects.demand, from: effects.request, operator: "fan-in")
        }
        UpstreamCalls.request(effects.demand, from: effects.requestOne, operator: "fan-in")
        if effects.released != nil {
            CalloutCheck.assertNoLockHeld("fan-in releasing what its machine let go of")
            withExtendedLifetime(effects.released) {}
        }
        switch effects.completion {
        case nil: break
        case .finished?:
            CalloutCheck.assertNoLockHeld("fan-in finishing its downstream")
            emitter.complete(.finished, order: .afterQueuedValues)
        case .failure(let error)?:
            CalloutCheck.assertNoLockHeld("fan-in failing its downstream")
            emitter.complete(.failure(error), order: .afterDemandedValues)
        }
    }

    /// Gives the downstream its subscription (`subscription`, the operator's).
    @inlinable
    package func start(_ subscription: Subscription) {
        CalloutCheck.assertNoLockHeld("fan-in handing the downstream its subscription")
        emitter.start(subscription: subscription)
    }

    /// Inner `id`'s value: delivered or dropped as the machine's ``FanInStateMachine/innerValue(_:)`` says, after
    /// cancelling what the value made obsolete. Returns the demand to give back to the inner: none, since the
    /// demand was forwarded to it up front.
    @inlinable
    package func offer(_ value: Downstream.Input, from id: Int) -> Subscribers.Demand {
        // A machine that settles on its first delivery (amb's winner) has the settled inner's later values skip the
        // lock: the decision, taken under the lock, leaves `id + 1` in the box's word (unused by such machines;
        // combineLatest's forwarder word is its own), and an inner's values arrive one at a time, so its later
        // values find it there. The end stays enforced: the emitter drops what is offered after a cancel or the
        // end. Where the word needs the lock (Apple platforms below Atomic's floor), every value takes the lock.
        if Machine.settlesOnFirstDelivery, LockedBoxWithWord<Machine>.hasLockFreeWord, state.loadWord() == id &+ 1 {
            emitter.offer(value)
            return .none
        }
        let decision = state.withCriticalSection { machine, word -> FanInValue in
            let decision = machine.innerValue(id)
            if Machine.settlesOnFirstDelivery, decision.delivers { word.store(id &+ 1) }
            return decision
        }
        switch decision {
        case .deliver:
            emitter.offer(value)
        case .drop:
            break
        case .deliverCancelling(let subscriptions):
            perform(FanInEffects(cancel: subscriptions))
            emitter.offer(value)
        }
        return .none
    }

    /// Inner `id` completed: performs what the machine's ``FanInStateMachine/innerCompleted(_:_:)`` decides.
    @inlinable
    package func complete(_ id: Int, _ completion: Subscribers.Completion<Downstream.Failure>) {
        perform(withCriticalSection { $0.innerCompleted(id, completion) })
    }

    /// Calls `body`, user code (a transform), with no lock held.
    @inlinable
    package func callOut<Result>(_ body: () -> Result) -> Result {
        CalloutCheck.assertNoLockHeld("fan-in calling a user closure")
        return body()
    }

    /// Subscribes `subscriber` to `publisher` (evaluated here, with no lock held: it may be a user closure's
    /// result, as flatMap's transform).
    @inlinable
    package func subscribe<Source: Publisher, Inner: Subscriber>(
        _ publisher: @autoclosure () -> Source, _ subscriber: Inner
    )
    where Source.Output == Inner.Input, Source.Failure == Inner.Failure {
        CalloutCheck.assertNoLockHeld("fan-in subscribing to a source")
        publisher().subscribe(subscriber)
    }

    /// Inner `id`'s subscription arrived: requests what the machine's ``FanInStateMachine/innerSubscribed(_:_:)``
    /// says, or cancels it.
    @inlinable
    package func inner(_ id: Int, subscribed subscription: Subscription) {
        guard let demand = withCriticalSection({ $0.innerSubscribed(id, subscription) }) else {
            perform(FanInEffects(cancelOne: subscription))
            return
        }
        if demand > .none {
            perform(FanInEffects(requestOne: subscription, demand: demand))
        }
    }

    /// The downstream's request: adds to the emitter's demand and forwards it where the machine's
    /// ``FanInStateMachine/request(_:)`` says.
    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        FanIn.forward(demand, state: state)
    }

    /// The downstream's cancel: stops the emitter (a completion already queued there can no longer reach the
    /// downstream), ends the machine (``FanInStateMachine/cancelled()``) and performs its ending. Returns true for
    /// the call that ended the machine.
    @inlinable
    @discardableResult
    package func cancel() -> Bool {
        _ = emitter.cancel()
        guard let ending = withCriticalSection({ $0.cancelled() }) else { return false }
        perform(FanInEffects(ending: ending))
        return true
    }
}

/// A fan-in operator's subscription whose downstream's `request` and `cancel` are its ``FanIn``'s (merge, amb, zip,
/// combineLatest, switchToLatest, flatMapFirst): it keeps the skeleton in `fanIn` and gets both from here.
///
/// ```swift
/// final class MySubscription<Downstream: Subscriber>: FanInOwner {
///     let fanIn: FanIn<Downstream, MyStateMachine>
/// }
/// ```
///
/// **Demand:** the downstream's requests go where the fan-in's routing says (``FanIn/request(_:)``).
/// **Thread safety:** `request` and `cancel` may be called from any thread (``FanIn``'s are).
@usableFromInline
package protocol FanInOwner: Subscription {
    /// The fan-in's downstream.
    associatedtype FanInDownstream: Subscriber
    /// The fan-in's state machine.
    associatedtype FanInMachine: FanInStateMachine
    /// The skeleton.
    var fanIn: FanIn<FanInDownstream, FanInMachine> { get }
}

// Forced inlining, as TransparentSubscriber's: the Subscription witness of an unspecialized subscription then makes
// the call itself, instead of calling the generic default with this protocol's witness table found at run time.
extension FanInOwner {
    /// The downstream's request, through ``FanIn/request(_:)``.
    @inlinable
    @inline(__always)
    package func request(_ demand: Subscribers.Demand) {
        fanIn.request(demand)
    }

    /// The downstream's cancel, through ``FanIn/cancel()``.
    @inlinable
    @inline(__always)
    package func cancel() {
        fanIn.cancel()
    }
}

/// An operator's subscription that receives the signals of its indexed ``FanInInner`` subscribers.
///
/// ```swift
/// extension MySubscription: FanInParent {
///     func inner(_ id: Int, subscribed subscription: Subscription) { fanIn.inner(id, subscribed: subscription) }
///     func inner(_ id: Int, received input: Output) -> Subscribers.Demand { fanIn.offer(input, from: id) }
///     func inner(_ id: Int, completed completion: Subscribers.Completion<Failure>) { fanIn.complete(id, completion) }
/// }
/// ```
///
/// **Demand:** `inner(_:received:)` returns the demand handed back to that inner.
/// **Thread safety:** inners may call from any threads, concurrently.
@usableFromInline
package protocol FanInParent: AnyObject, CustomStringConvertible {
    /// The inners' value type.
    associatedtype InnerInput
    /// The inners' failure type.
    associatedtype InnerFailure: Error
    /// Inner `id` received its subscription.
    func inner(_ id: Int, subscribed subscription: Subscription)
    /// Inner `id` received a value; returns the demand to give back to it.
    func inner(_ id: Int, received input: InnerInput) -> Subscribers.Demand
    /// Inner `id` completed.
    func inner(_ id: Int, completed completion: Subscribers.Completion<InnerFailure>)
}

/// The subscriber a fan-in gives one of its inner publishers: it forwards every signal to its parent with its id,
/// and describes itself as the parent does.
///
/// ```swift
/// publisher.subscribe(FanInInner(parent: self, id: 3))
/// ```
///
/// **Demand:** what the parent's `inner(_:received:)` returns.
/// **Thread safety:** as the parent.
@usableFromInline
package struct FanInInner<Parent: FanInParent>: Subscriber, CustomStringConvertible {
    @usableFromInline package typealias Input = Parent.InnerInput
    @usableFromInline package typealias Failure = Parent.InnerFailure

    @usableFromInline let parent: Parent
    @usableFromInline let id: Int
    /// This subscriber's identity.
    @usableFromInline package let combineIdentifier = CombineIdentifier()

    /// The inner numbered `id` of `parent`.
    @inlinable
    package init(parent: Parent, id: Int) {
        self.parent = parent
        self.id = id
    }

    @inlinable
    package func receive(subscription: Subscription) {
        parent.inner(id, subscribed: subscription)
    }

    @inlinable
    package func receive(_ input: Parent.InnerInput) -> Subscribers.Demand {
        parent.inner(id, received: input)
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Parent.InnerFailure>) {
        parent.inner(id, completed: completion)
    }

    @usableFromInline
    package var description: String { parent.description }
}

extension DemandRelay {
    /// The emitter of an operator with several upstreams (fan-in, zip, combineLatest, withLatestFrom), delivering to
    /// this relay. Values beyond the downstream's demand wait in it (`.unbounded`): the operator bounds them by what
    /// it requested from its upstreams.
    ///
    /// ```swift
    /// emitter = DemandRelay(downstream: subscriber) { more in Self.requestUpstreams(more, state: state) }.emitter()
    /// ```
    @inlinable
    package func emitter() -> Emitter<DemandRelay> {
        Emitter(downstream: self, policy: .unbounded)
    }
}
