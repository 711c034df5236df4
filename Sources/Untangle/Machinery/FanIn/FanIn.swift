import UntangleSync

/// What every fan-in's pure state machine answers: the arrival of an inner's subscription. The ``FanIn`` skeleton
/// asks it from ``FanIn/inner(_:subscribed:)``; a machine that also leaves the downstream's requests and cancel to
/// the skeleton conforms to ``FanInStateMachine``, one that counts the downstream's demand itself (flatMap) only to
/// this protocol.
///
/// ```swift
/// struct MyMachine: FanInInnerStateMachine {
///     mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? { ... }
/// }
/// ```
///
/// **Demand:** `innerSubscribed` returns the demand a new inner subscription is asked for.
/// **Thread safety:** none: the skeleton calls it only under its lock; it must never call out.
@usableFromInline
package protocol FanInInnerStateMachine {
    /// Inner `id`'s subscription arrived: returns the demand to request from it (`.none`: nothing yet), or nil to
    /// cancel it instead (unwanted, late, or a second subscription).
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand?
}

/// What a fan-in's pure state machine answers for the downstream's requests, which the ``FanIn`` skeleton forwards
/// itself (``FanInSkeleton/request(_:)``, and demand the downstream returns from `receive(_:)`). A machine that also
/// leaves the downstream's cancel to the skeleton conforms to ``FanInStateMachine``; combineLatest, which lets go of
/// its latest values too when cancelled, only to this protocol.
///
/// ```swift
/// struct MyMachine: FanInDemandStateMachine {
///     mutating func request(_ demand: Subscribers.Demand) -> [Subscription] { ... }
///     mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? { ... }
/// }
/// ```
///
/// **Demand:** `request` returns the subscriptions the downstream's new demand is forwarded to.
/// **Thread safety:** none: the skeleton calls it only under its lock; it must never call out.
@usableFromInline
package protocol FanInDemandStateMachine: FanInInnerStateMachine {
    /// The downstream asked for `demand` more: returns the subscriptions to forward it to (none once ended).
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription]
}

/// What a fan-in's pure state machine answers for the requests and cancels the ``FanIn`` skeleton handles itself.
/// Everything else an operator's machine decides (values, completions, its own upstream) stays operator-specific.
///
/// ```swift
/// struct MyMachine: FanInStateMachine {
///     mutating func request(_ demand: Subscribers.Demand) -> [Subscription] { ... }
///     mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? { ... }
///     mutating func terminate() -> [Subscription]? { ... }
/// }
/// ```
///
/// **Demand:** `request` returns the subscriptions the downstream's new demand is forwarded to; `innerSubscribed`
/// returns the demand a new inner subscription is asked for.
/// **Thread safety:** none: the skeleton calls it only under its lock; it must never call out.
@usableFromInline
package protocol FanInStateMachine: FanInDemandStateMachine {
    /// The downstream cancelled: ends the machine and returns every subscription to cancel (nil: already ended).
    mutating func terminate() -> [Subscription]?
}

/// The lock a ``FanInSkeleton`` keeps its machine under: ``LockedBox`` for every fan-in (``FanIn``), or
/// ``LockedBoxWithWord`` for an operator that also keeps a lock-free word beside its machine (combineLatest's
/// forwarder, ``CombiningForwarder``), which reaches the word through the box itself.
///
/// ```swift
/// let state = LockedBox(tracking: MergeStateMachine(upstreamCount: 2))
/// let subscriptions = state.criticalSection { $0.request(.max(1)) }
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** ``criticalSection(_:)`` from any thread, not reentrantly; make no callout in its body.
@usableFromInline
package protocol FanInLock {
    /// The state under the lock.
    associatedtype Value
    /// A lock around `value`, counted by `LiveObjects` in debug builds.
    init(tracking value: consuming Value)
    /// Runs `body` on the value under the lock.
    func criticalSection<Result>(_ body: (inout Value) -> Result) -> Result
}

extension LockedBox: FanInLock {
    /// Runs `body` on the value under the lock (``withCriticalSection(_:)``).
    @inlinable
    package func criticalSection<Result>(_ body: (inout Value) -> Result) -> Result {
        withCriticalSection(body)
    }
}

extension LockedBoxWithWord: FanInLock {
    /// Runs `body` on the value under the lock, leaving the word alone.
    @inlinable
    package func criticalSection<Result>(_ body: (inout Value) -> Result) -> Result {
        withCriticalSection { value, _ in body(&value) }
    }
}

/// The callouts one decision of a fan-in needs, made by ``FanIn/perform(_:)`` after the lock is released, in this
/// order: cancel, request, release, complete.
///
/// ```swift
/// let effects = fanIn.decide { machine in FanInEffects(cancel: machine.terminate() ?? [], completion: failure) }
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
        cancel: [Subscription] = [], request: [Subscription] = [], requestOne: Subscription? = nil,
        demand: Subscribers.Demand = .none, released: Any? = nil, completion: Subscribers.Completion<Failure>? = nil
    ) {
        self.cancel = cancel
        self.request = request
        self.requestOne = requestOne
        self.demand = demand
        self.released = released
        self.completion = completion
    }
}

// Performance: `@usableFromInline` with `@inlinable` members, stored inline (a struct of two `let`s) in the
// operator's subscription: a value reaches the emitter through the subscription's own `let`s, as before the
// skeleton existed, so merge's per-value path costs nothing more.
/// The skeleton of every fan-in operator (merge, flatMap, switchToLatest, zip, combineLatest, amb, flatMapFirst,
/// retry(when:)): the downstream's ``Emitter`` behind a ``DemandRelay`` (demand the subscriber returns from
/// `receive(_:)` is forwarded like a request), the lock around the operator's pure ``FanInStateMachine``, downstream
/// `request`/`cancel`, the arrival of indexed inner subscriptions (``FanInInner``), and ``perform(_:)``, the one
/// place that makes the callouts a decision needs.
///
/// An operator's subscription keeps one `FanIn` in a `let`, answers its inners' signals by deciding under the lock
/// (``decide(_:)``) and performing the result, and offers values straight to ``emitter``.
///
/// ```swift
/// let fanIn = FanIn(downstream: subscriber, machine: MergeStateMachine(upstreamCount: 2))
/// fanIn.emitter.start(subscription: self)
/// fanIn.perform(fanIn.decide { FanInEffects(completion: $0.finished(at: 0) ? .finished : nil) })
/// ```
///
/// **Demand:** downstream requests (and demand returned from `receive(_:)`) go to the subscriptions the machine's
/// `request` names; values beyond the downstream's demand wait in the emitter (`.unbounded`), so the buffer is
/// bounded by what the machine requested.
/// **Thread safety:** every method may be called from any thread; the machine is touched only under the lock, and
/// every callout (upstream request/cancel, downstream signals, releases) happens after it is released.
@usableFromInline
package typealias FanIn<Downstream: Subscriber, Machine: FanInInnerStateMachine> = FanInSkeleton<
    Downstream, Machine, LockedBox<Machine>
>

/// The fan-in skeleton over any ``FanInLock``: ``FanIn`` is this over a ``LockedBox``, the lock of every fan-in but
/// combineLatest, which keeps its forwarder's word in a ``LockedBoxWithWord`` beside its machine.
///
/// ```swift
/// let fanIn = FanInSkeleton<Downstream, State, LockedBoxWithWord<State>>(downstream: subscriber, machine: State())
/// ```
///
/// **Demand:** as ``FanIn``.
/// **Thread safety:** as ``FanIn``.
@usableFromInline
package struct FanInSkeleton<Downstream: Subscriber, Machine: FanInInnerStateMachine, Lock: FanInLock>:
    @unchecked Sendable
where Lock.Value == Machine {
    /// The downstream's serializing emitter.
    @usableFromInline package let emitter: Emitter<DemandRelay<Downstream>>
    /// The operator's state machine, under its lock.
    @usableFromInline package let state: Lock

    // The one designated init: the ways to build the skeleton differ only in the relay the emitter delivers to (what
    // becomes of the demand the downstream returns from `receive(_:)`, and whether the relay wraps the machine's
    // lock) and, for a machine that counts the demand itself, in the emitter asked for `.unlimited` up front.
    /// A skeleton around `machine` whose emitter delivers to the relay `relay` builds around the machine's lock.
    @inlinable
    package init(machine: Machine, relay: (Lock) -> DemandRelay<Downstream>) {
        let state = Lock(tracking: machine)
        self.state = state
        emitter = relay(state).emitter()
    }

    // The machine counts the downstream's demand (flatMap): the emitter is asked for `.unlimited` once and only
    // serializes; a value reaches it only once the machine has charged it to the downstream's demand.
    /// A skeleton around a `machine` that counts the downstream's demand itself: requests (forwarded by the
    /// operator's `request(_:)`) and demand the downstream returns from `receive(_:)` (passed to `onDemand`, on the
    /// delivering thread, with no lock held) are the operator's to decide on.
    @inlinable
    package init(
        downstream: Downstream, machine: Machine, countingDemand onDemand: @escaping (Subscribers.Demand) -> Void
    ) {
        self.init(machine: machine) { _ in DemandRelay(downstream: downstream, onReturnedDemand: onDemand) }
        emitter.request(.unlimited)
    }

    // The wrapper is built around the machine's lock so that it can consult the machine at the moment of delivery
    // (switchToLatest drops a replaced inner's value there, however long it waited in the emitter).
    /// A skeleton whose emitter delivers to `downstream`, a wrapper the operator builds around the machine's lock,
    /// for operators that tag their values: demand the wrapper returns from `receive(_:)` is passed to `onDemand`
    /// (on the delivering thread, with no lock held); the emitter counts the downstream's requests as usual.
    @inlinable
    package init(
        machine: Machine, onDemand: @escaping (Subscribers.Demand) -> Void,
        downstream: (Lock) -> Downstream
    ) {
        self.init(machine: machine) { state in DemandRelay(downstream: downstream(state), onReturnedDemand: onDemand) }
    }

    /// Runs `body` on the machine under the lock; make no callout in it.
    @inlinable
    package func decide<Result>(_ body: (inout Machine) -> Result) -> Result {
        state.criticalSection(body)
    }

    /// Makes the callouts `effects` names, with no lock held: cancels, requests, releases, then completes the
    /// downstream (`.finished` after the queued values, a failure after the demanded ones).
    @inlinable
    package func perform(_ effects: FanInEffects<Downstream.Failure>) {
        if !effects.cancel.isEmpty {
            UpstreamCalls.cancel(effects.cancel, operator: "fan-in")
        }
        if !effects.request.isEmpty {
            UpstreamCalls.request(effects.demand, from: effects.request, operator: "fan-in")
        }
        if let subscription = effects.requestOne {
            CalloutCheck.assertNoLockHeld("fan-in requesting from an upstream")
            subscription.request(effects.demand)
        }
        if effects.released != nil {
            CalloutCheck.assertNoLockHeld("fan-in releasing a subscription")
            withExtendedLifetime(effects.released) {}
        }
        switch effects.completion {
        case nil: break
        case .finished?: emitter.complete(.finished, order: .afterQueuedValues)
        case .failure(let error)?: emitter.complete(.failure(error), order: .afterDemandedValues)
        }
    }

    /// A value from an inner: offered to the downstream if `admit` (run under the lock) says so. Returns the demand
    /// to give back to the inner: none, since the demand was forwarded to it up front.
    @inlinable
    package func offer(
        _ value: Downstream.Input, ifAdmitted admit: (inout Machine) -> Bool
    ) -> Subscribers.Demand {
        if decide(admit) {
            emitter.offer(value)
        }
        return .none
    }

    /// A source completed: for `.finished`, `finished` (under the lock) says whether the downstream finishes now
    /// and what the machine let go of; for a failure, `failed` ends the machine and returns what to cancel (nil: it
    /// had already ended, the failure is ignored). Then the result is performed.
    @inlinable
    package func complete(
        _ completion: Subscribers.Completion<Downstream.Failure>,
        finished: (inout Machine) -> (finish: Bool, released: Any?),
        failed: (inout Machine) -> [Subscription]?
    ) {
        let effects = decide { machine -> FanInEffects<Downstream.Failure> in
            switch completion {
            case .finished:
                let (finish, released) = finished(&machine)
                return FanInEffects(released: released, completion: finish ? .finished : nil)
            case .failure:
                guard let toCancel = failed(&machine) else { return FanInEffects() }
                return FanInEffects(cancel: toCancel, completion: completion)
            }
        }
        perform(effects)
    }

    // The downstream's cancel for a machine that lets go of more than subscriptions when it ends (zip's unpaired
    // values, combineLatest's latest ones): `terminate` names them in the effects, released after unlocking.
    /// The downstream's cancel: stops the emitter, then `terminate` (under the lock) ends the machine and returns
    /// what to do after unlocking (nil: it had already ended). Returns true for the call that ended the machine.
    @inlinable
    @discardableResult
    package func cancel(terminating terminate: (inout Machine) -> FanInEffects<Downstream.Failure>?) -> Bool {
        emitter.cancel()
        guard let effects = decide(terminate) else { return false }
        perform(effects)
        return true
    }

    /// Inner `id`'s subscription arrived: requests what the machine says, or cancels it.
    @inlinable
    package func inner(_ id: Int, subscribed subscription: Subscription) {
        UpstreamAdmission(decide { $0.innerSubscribed(id, subscription) }).perform(on: subscription, operator: "fan-in")
    }
}

extension FanInSkeleton where Machine: FanInDemandStateMachine {
    /// A skeleton around `machine` delivering to `downstream`; demand the downstream returns from `receive(_:)` is
    /// forwarded like a request.
    @inlinable
    package init(downstream: Downstream, machine: Machine) {
        // The relay's closure captures the state, not the operator's subscription, so the emitter does not keep the
        // subscription alive.
        self.init(machine: machine) { state in
            DemandRelay(downstream: downstream) { more in FanInSkeleton.forward(more, state: state) }
        }
    }

    @inlinable
    static func forward(_ demand: Subscribers.Demand, state: Lock) {
        let subscriptions = state.criticalSection { $0.request(demand) }
        UpstreamCalls.request(demand, from: subscriptions, operator: "fan-in")
    }

    /// The downstream's request: adds to the emitter's demand and forwards it where the machine says.
    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        FanInSkeleton.forward(demand, state: state)
    }
}

extension FanInSkeleton where Machine: FanInStateMachine {
    /// The downstream's cancel: stops the emitter, ends the machine and cancels what it held. Returns true for the
    /// call that ended the machine.
    @inlinable
    @discardableResult
    package func cancel() -> Bool {
        cancel { machine in machine.terminate().map { FanInEffects(cancel: $0) } }
    }
}

/// An operator's subscription that receives the signals of its indexed ``FanInInner`` subscribers.
///
/// ```swift
/// extension MySubscription: FanInParent {
///     func inner(_ id: Int, subscribed subscription: Subscription) { fanIn.inner(id, subscribed: subscription) }
///     func inner(_ id: Int, received input: Output) -> Subscribers.Demand { fanIn.emitter.offer(input); return .none }
///     func inner(_ id: Int, completed completion: Subscribers.Completion<Failure>) { ... }
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
