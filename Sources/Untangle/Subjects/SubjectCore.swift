import UntangleSync

/// One subscriber's connection to a subject, seen by the subject without knowing the subscriber's type.
///
/// Performance: the per-value and per-request entry points are stored closures, not overridden methods. A
/// subclass's override runs the subclass's *unspecialized* generic code (vtables and witness tables of generic
/// classes always point there), which pays a runtime metadata lookup (hundreds of instructions) for every generic
/// type it touches, on every call. The closures are formed in ``SubjectConduitEntries``' `@inlinable` initializer,
/// which the client module specializes for the concrete subscriber type; they capture nothing, so they cost no
/// allocation.
///
/// Memory: the closures, the subject's list and its delivery lock are in one ``SubjectConduitEntries`` object per
/// subject and subscriber type, which every such conduit shares (one reference here instead of 48 bytes).
@usableFromInline
package class SubjectConduit<Output, Failure: Error> {
    // Set once, under the subject's lock, before the conduit is published (in the list, or to a sink adopting it)
    // or started, so every later reader sees it; released in deinit. A `RetainedReference` (UntangleSync), so that
    // reading it per value takes no reference count (a strong `var` would be retained around each call: the call
    // might replace it). One reference wide: `SubjectSubscription.inlineState` counts on that.
    //
    // An earlier wrapper struct here cost +358 instructions (+12%) per subscribe and cancel: this class is generic,
    // and its unspecialized code (its deinit, `cancel()` through the `Cancellable` witness) fetched the wrapper's
    // generic metadata. `RetainedReference` inlines every member and needs none (subscribe-cancel 2996.8
    // instructions with it, as before; see "Raw memory" in Benchmarks/README.md).
    @exclusivity(unchecked) @usableFromInline final var entriesReference:
        RetainedReference<SubjectConduitEntries<Output, Failure>>?

    @inlinable
    package init() {}

    deinit {
        entriesReference?.release()
    }

    /// Sets the entries (once, before the conduit is published; see `entriesReference`).
    @inlinable
    final func setEntries(_ entries: SubjectConduitEntries<Output, Failure>) {
        entriesReference = RetainedReference(retaining: entries)
    }

    /// Calls `body` with the entries, borrowed (the conduit keeps them).
    @inlinable
    final func withEntries<Result>(_ body: (SubjectConduitEntries<Output, Failure>) -> Result) -> Result {
        entriesReference.unsafelyUnwrapped.withBorrowed(body)
    }

    @inlinable
    package final func offer(_ value: Output) {
        withEntries { $0.offerEntry(self, value) }
    }

    @inlinable
    package func finish(_ completion: Subscribers.Completion<Failure>) {
        preconditionFailure("SubjectConduit.finish is abstract")
    }
}

/// What the conduits of one subject and one subscriber type share: their specialized entry points (see
/// ``SubjectConduit``), the subject's state (its subscriber list) and the lock of their emitter states. The subject
/// keeps one per subscriber type it has seen (in `State.entries`, dropped in its deinit) and hands it to each new
/// conduit.
///
/// ```swift
/// let entries = SubjectConduitEntries(for: S.self, registry: core.state, deliveryLock: core.deliveryLock)
/// conduit.setEntries(entries)
/// ```
///
/// **Thread safety:** immutable.
@usableFromInline
package final class SubjectConduitEntries<Output, Failure: Error> {
    /// The subscriber type these entry points are specialized for (the emitter's: ``SubjectSinkBase`` for a
    /// ``SubjectSink``).
    @usableFromInline let downstreamType: ObjectIdentifier
    /// Offers a value to the conduit passed as the first argument.
    @usableFromInline let offerEntry: (SubjectConduit<Output, Failure>, Output) -> Void
    /// Requests demand (non-nil) or cancels (nil) for the conduit passed as the first argument.
    @usableFromInline let controlEntry: (SubjectConduit<Output, Failure>, Subscribers.Demand?) -> Void
    // The subject's state (its subscriber list), held strongly, not the subject: a subscription must not keep its
    // subject alive, and the list holds the subscriptions (and the state holds this object), so these are cycles,
    // broken when a subscription leaves the list (on cancel, on the subject's completion and in the subject's
    // deinit) and when the subject's deinit drops its entries.
    //
    // Performance: a strong reference costs one reference-count operation to take and one to drop; the weak
    // reference to the subject it replaces cost three atomic operations on the subject's side table (form, load
    // strong, destroy), about 8% of a subscribe and cancel.
    @usableFromInline let registry: LockedBox<SubjectCore<Output, Failure>.State>
    /// The lock of every conduit's emitter state (see `SubjectSubscription.state`); taken inside the subject lock
    /// at most (to queue a current value), never the other way round, and only around the emitters' state machines.
    @usableFromInline let deliveryLock: Lock
    /// Which subject this is (how its subscriptions describe themselves).
    @usableFromInline let kind: SubjectKind
    // 1 once this object has seen the subject's first downstream demand (`State.upstreamDemand`), so that a
    // request through it no longer takes the subject lock to check; it starts at 1 when the subject had seen demand
    // already, or does not wait for it. One atomic load per request.
    @usableFromInline let demandAcknowledged: AtomicWord

    @inlinable
    init(
        downstreamType: ObjectIdentifier, registry: LockedBox<SubjectCore<Output, Failure>.State>, deliveryLock: Lock,
        kind: SubjectKind, demandAcknowledged: Bool,
        offerEntry: @escaping (SubjectConduit<Output, Failure>, Output) -> Void,
        controlEntry: @escaping (SubjectConduit<Output, Failure>, Subscribers.Demand?) -> Void
    ) {
        self.downstreamType = downstreamType
        self.registry = registry
        self.deliveryLock = deliveryLock
        self.kind = kind
        self.demandAcknowledged = AtomicWord(demandAcknowledged ? 1 : 0)
        self.offerEntry = offerEntry
        self.controlEntry = controlEntry
    }

    /// The entries of the subscriptions of subscribers of type `Downstream` (``SubjectSubscriptionOf``).
    @inlinable
    convenience init<Downstream: Subscriber>(
        for downstream: Downstream.Type, registry: LockedBox<SubjectCore<Output, Failure>.State>, deliveryLock: Lock,
        kind: SubjectKind, demandAcknowledged: Bool
    ) where Downstream.Input == Output, Downstream.Failure == Failure {
        // The first argument is always a `SubjectSubscriptionOf<Downstream>` (a conduit calls the entries it was given
        // with itself), so the downcast is safe; passing it in keeps the closures capture-free.
        self.init(
            downstreamType: ObjectIdentifier(Downstream.self), registry: registry, deliveryLock: deliveryLock,
            kind: kind, demandAcknowledged: demandAcknowledged,
            offerEntry: { conduit, value in
                RawReference.downcast(conduit, to: SubjectSubscriptionOf<Downstream>.self).emitter.offer(value)
            },
            controlEntry: { conduit, demand in
                let subscription = RawReference.downcast(conduit, to: SubjectSubscriptionOf<Downstream>.self)
                if let demand {
                    subscription.emitter.request(demand)
                    subscription.withEntries { entries in
                        if entries.demandAcknowledged.load() == 0 {
                            SubjectCore<Output, Failure>.acknowledgeDownstreamDemand(entries)
                        }
                    }
                } else if subscription.emitter.cancel() {
                    // The registry is used where the entries are borrowed: returned out of the borrow, the box was
                    // retained and released around the removal.
                    subscription.withEntries { SubjectCore.remove(subscription, from: $0.registry) }
                }
            })
    }

    /// The entries of ``SubjectSink``s: only offers go through them (a sink subscription has all the demand it
    /// will ever have, and its `AnyCancellable` cancels it directly, see `SubjectCore.subscribeSink(closures:)`).
    @inlinable
    convenience init(
        forSinksWith registry: LockedBox<SubjectCore<Output, Failure>.State>, deliveryLock: Lock, kind: SubjectKind,
        demandAcknowledged: Bool
    ) {
        self.init(
            downstreamType: ObjectIdentifier(SubjectSinkBase<Output, Failure>.self), registry: registry,
            deliveryLock: deliveryLock, kind: kind, demandAcknowledged: demandAcknowledged,
            offerEntry: { conduit, value in
                RawReference.downcast(conduit, to: SubjectSinkOf<Output, Failure>.self).emitter.offer(value)
            },
            controlEntry: { _, _ in
                preconditionFailure("SubjectConduitEntries: a sink subscription's requests and cancels are direct")
            })
    }
}

/// The shared machinery of ``PassthroughSubject`` and ``CurrentValueSubject``: the list of subscribers, the terminal
/// state and the upstream subscriptions, behind one lock; delivery goes through each subscriber's ``Emitter``.
///
/// **Demand:** per subscriber, through its emitter's policy.
/// **Thread safety:** every method may be called from any thread. The subject lock is held only to read or change
/// the list; values are handed to the emitters after unlocking (sends from one thread keep their order; sends from
/// several threads at once interleave in an unspecified order, and nothing is lost that demand allowed).
@usableFromInline
package final class SubjectCore<Output, Failure: Error>: @unchecked Sendable {
    /// The subject's state, behind the subject lock: its subscribers, its completion (nil while it is open), its
    /// upstream subscriptions and whether they were asked for `.unlimited`, its current value. Its methods decide;
    /// the subject calls out after unlocking.
    @usableFromInline
    struct State {
        /// Whether upstream subscriptions (`send(subscription:)`) are asked for `.unlimited`: from the start for
        /// most subjects, from the first downstream request for a PassthroughSubject (as in Combine).
        @usableFromInline
        enum UpstreamDemand {
            /// No subscriber has asked for anything: upstream subscriptions are only kept.
            case awaitingFirstDemand
            /// Every upstream subscription is asked for `.unlimited` (those kept until then were, once).
            case requested
        }

        @usableFromInline var conduits: [SubjectConduit<Output, Failure>] = []
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        @usableFromInline var upstreams = SubjectUpstreams()
        /// The latest value, for CurrentValueSubject; nil for PassthroughSubject.
        @usableFromInline var current: Output?
        /// The conduit entries made so far, one per subscriber type (see `entries(for:in:)`).
        @usableFromInline var entries: [SubjectConduitEntries<Output, Failure>] = []
        @usableFromInline var upstreamDemand: UpstreamDemand

        @inlinable
        init(current: Output?, upstreamDemand: UpstreamDemand) {
            self.current = current
            self.upstreamDemand = upstreamDemand
        }

        /// Whether upstream subscriptions are asked for `.unlimited` (a subscriber asked for something already).
        @inlinable
        var upstreamDemandRequested: Bool {
            if case .requested = upstreamDemand { return true }
            return false
        }

        /// Records the subject's first downstream demand; returns the upstream subscriptions to ask for `.unlimited`
        /// (after unlocking), none if demand had been recorded before.
        @inlinable
        mutating func takeFirstDemand() -> [Subscription] {
            guard case .awaitingFirstDemand = upstreamDemand else { return [] }
            upstreamDemand = .requested
            return upstreams.all
        }

        /// A value is sent: the subscribers to offer it to (none once completed), and the current value it
        /// replaces (to release after unlocking).
        @inlinable
        mutating func send(_ value: Output) -> ([SubjectConduit<Output, Failure>], replaced: Output?) {
            guard completion == nil else { return ([], nil) }
            var replaced: Output?
            if current != nil {
                replaced = current
                current = value
            }
            return (conduits, replaced)
        }

        /// CurrentValueSubject's `value` is set: it becomes the current value also after a completion (as in
        /// Combine); returns the subscribers to offer it to (none once completed) and the value it replaces.
        @inlinable
        mutating func setCurrent(_ value: Output) -> ([SubjectConduit<Output, Failure>], replaced: Output?) {
            let replaced = current
            current = value
            return (completion == nil ? conduits : [], replaced)
        }

        /// The subject completes: returns the subscribers to finish (they leave the list), none if it had
        /// completed before.
        @inlinable
        mutating func complete(_ completion: Subscribers.Completion<Failure>) -> [SubjectConduit<Output, Failure>] {
            guard self.completion == nil else { return [] }
            self.completion = completion
            defer { conduits = [] }
            return conduits
        }

        /// An upstream subscription is handed over: kept (also after the completion); returns whether to ask it for
        /// `.unlimited` now, and the ended connections it replaced (to release after unlocking).
        @inlinable
        mutating func addUpstream(_ subscription: Subscription) -> (request: Bool, dropped: [Subscription]) {
            (upstreamDemandRequested, upstreams.add(subscription))
        }

        /// A cancelled subscriber leaves the list: returns it (to release after unlocking), nil if it had left.
        @inlinable
        mutating func remove(_ conduit: SubjectConduit<Output, Failure>) -> SubjectConduit<Output, Failure>? {
            guard let index = conduits.firstIndex(where: { $0 === conduit }) else { return nil }
            return conduits.remove(at: index)
        }
    }

    @usableFromInline let state: LockedBox<State>
    @usableFromInline let policy: EmitterBufferPolicy
    /// The lock of every subscriber's emitter state (see `SubjectConduitEntries.deliveryLock`).
    @usableFromInline let deliveryLock = Lock()
    @usableFromInline let kind: SubjectKind

    /// A subject with `policy` `.dropWithoutDemand` keeps no current value (`subscribeSink` relies on it).
    @inlinable
    package init(current: Output?, policy: EmitterBufferPolicy, kind: SubjectKind = .plain) {
        precondition(policy != .dropWithoutDemand || current == nil, "SubjectCore: a current value needs .keepLatest")
        state = LockedBox(
            tracking: State(
                current: current,
                upstreamDemand: kind.requestsUpstreamOnFirstDemand ? .awaitingFirstDemand : .requested))
        self.policy = policy
        self.kind = kind
    }

    deinit {
        // The subject is gone: nobody can send any more, so stop upstream subscriptions it was forwarding, and let go
        // of the subscriptions (each holds the state strongly, see `SubjectConduitEntries.registry`; this breaks that
        // cycle). They are released after unlocking: releasing one may run user code (a subscriber's deinit).
        // The current value goes too: subscriptions that outlive the subject keep the state, not the value.
        // The conduit entries go as well (each holds the state: another cycle).
        let (upstreams, conduits, current, entries) = state.withCriticalSection { state in
            defer {
                state.conduits = []
                state.current = nil
                state.entries = []
            }
            return (state.upstreams.takeAll(), state.conduits, state.current, state.entries)
        }
        withExtendedLifetime((conduits, current, entries)) {}
        for upstream in upstreams {
            upstream.cancel()
        }
    }

    /// The latest value (CurrentValueSubject only).
    @inlinable
    package var current: Output {
        state.withCriticalSection { $0.current! }
    }

    @inlinable
    package func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        if policy == .dropWithoutDemand, DownstreamReference<S>.isSink {
            subscribeSink(_unsafeReferenceCast(subscriber, to: Subscribers.Sink<Output, Failure>.self))
            return
        }
        let conduit = SubjectSubscriptionOf(downstream: subscriber, policy: policy)
        let completion = state.withCriticalSection { state -> Subscribers.Completion<Failure>? in
            conduit.setEntries(entries(for: S.self, in: &state))
            if let completion = state.completion {
                return completion
            }
            if let current = state.current {
                // Queued (not delivered: the subscription has not started), so no callout happens here.
                conduit.emitter.offer(current)
            }
            state.conduits.append(conduit)
            return nil
        }
        if let completion {
            CalloutCheck.assertNoLockHeld("subject subscribing after completion")
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
            return
        }
        conduit.emitter.start(subscription: conduit)
    }

    // A `Sink` on a subject without a current value (the most common subscription there is) skips the
    // subscription callout: what the sink does in `receive(subscription:)` is known (keep the subscription, request
    // `.unlimited`), so the sink adopts a subscription whose emitter starts with unlimited demand. Nothing can tell
    // the difference: the sink holds its subscription before any value can reach it and has asked for everything,
    // and a subject that already completed delivers its completion through the new subscription's emitter, as it
    // would after a callout. What it saves: the three critical sections of the callout (start, the sink's request,
    // the callout's end), about a tenth of a subscribe and cancel. Subjects with a current value
    // (CurrentValueSubject) keep the ordinary path, which queues that value before the subscription is published.
    //
    // The adoption happens under the subject lock, together with publishing the subscription in the list. It is
    // the sink's own atomic state change, not a callout (no user code, no other lock), and doing it there closes a
    // window: a `cancel()` on the sink from another thread lands either before it (the adoption fails, nothing is
    // published) or after the subscription is in the list (the cancel's removal waits for the lock and finds it).
    // Adopted first and published after, a cancel in between would have removed nothing and left a dead
    // subscription in the list for the subject's lifetime.
    //
    // The adopted sink has asked for `.unlimited`: for a PassthroughSubject that is the first downstream demand
    // that starts the upstream subscriptions, if nobody asked before.
    @inlinable
    func subscribeSink(_ sink: Subscribers.Sink<Output, Failure>) {
        let conduit = SubjectSubscriptionOf(startedSink: sink, policy: policy)
        let (completion, upstreams) = state.withCriticalSection {
            state -> (Subscribers.Completion<Failure>?, [Subscription]) in
            conduit.setEntries(entries(for: Subscribers.Sink<Output, Failure>.self, in: &state))
            guard sink.adoptUnlimitedSubscription(conduit) else { return (nil, []) }
            if let completion = state.completion {
                return (completion, [])
            }
            state.conduits.append(conduit)
            return (nil, state.takeFirstDemand())
        }
        if let completion {
            conduit.emitter.complete(completion, order: .immediately)
        }
        Self.requestUnlimited(from: upstreams)
    }

    /// A `sink` on the subject, as one object (see ``SubjectSink``): the subscription, published with unlimited
    /// demand as `subscribeSink(_:)` publishes an adopted one, holding `closures`. A current value is delivered
    /// right after, before the call returns, by this thread as the emitter's owner (claimed before publishing, so
    /// values sent meanwhile by other threads queue behind it), as a subscription callout would have delivered it.
    ///
    /// `hasCurrentValue`: whether the subject keeps one (a constant at each call site, so that a PassthroughSubject's
    /// sink does not pay for the branch: 14 instructions of subscribe-cancel).
    @inlinable
    @inline(__always)
    func subscribeSink(closures: consuming SinkClosures<Output, Failure>, hasCurrentValue: Bool) -> () -> Void {
        let conduit = SubjectSinkOf<Output, Failure>(closures: closures, policy: policy)
        // Performance: nil, not an empty array, when there is nothing to request (nearly always: only a
        // PassthroughSubject's first demand starts its upstreams): returning the empty array cost its retain and
        // release, 37 instructions of a subscribe and cancel (subscribe-cancel 1,530.7 with it, 1,493.7 without).
        let (completion, upstreams, current) = state.withCriticalSection {
            state -> (Subscribers.Completion<Failure>?, [Subscription]?, Output?) in
            conduit.setEntries(sinkEntries(in: &state))
            if let completion = state.completion {
                return (completion, nil, nil)
            }
            var current: Output?
            if hasCurrentValue, let value = state.current {
                conduit.claimBeforePublishing(on: ThreadID.current)
                current = value
            }
            state.conduits.append(conduit)
            guard case .awaitingFirstDemand = state.upstreamDemand else { return (nil, nil, current) }
            return (nil, state.takeFirstDemand(), current)
        }
        if let completion {
            conduit.emitter.complete(completion, order: .immediately)
        } else if let current {
            conduit.deliverAsOwner(current)
        }
        if let upstreams {
            Self.requestUnlimited(from: upstreams)
        }
        // Performance: a closure (the caller's `AnyCancellable` holds it), formed here where the types are known, so
        // that the cancel runs code specialized for them; `AnyCancellable(conduit)` would reach `cancel()` through the
        // `Cancellable` witness, compiled once for the generic class (95 more instructions per subscribe and cancel,
        // that way through the entries). The closure's context is the subscription itself (one reference captured:
        // no allocation).
        return { conduit.cancel() }
    }

    @inlinable
    static func requestUnlimited(from upstreams: [Subscription]) {
        guard !upstreams.isEmpty else { return }
        CalloutCheck.assertNoLockHeld("subject requesting from its upstream subscriptions")
        for upstream in upstreams {
            upstream.request(.unlimited)
        }
    }

    /// A subscriber of the subject requested demand through `entries` for the first time: for a PassthroughSubject
    /// that may be the subject's first downstream demand, which starts its upstream subscriptions.
    @usableFromInline
    static func acknowledgeDownstreamDemand(_ entries: SubjectConduitEntries<Output, Failure>) {
        let upstreams = entries.registry.withCriticalSection { $0.takeFirstDemand() }
        _ = entries.demandAcknowledged.exchange(1)
        requestUnlimited(from: upstreams)
    }

    // Looked up under the subject lock, where subscribing takes it anyway. Subscriber types are few per subject (the
    // types in the program's code that subscribe to it), so a linear search over a short list; past 16 types a
    // conduit gets entries of its own (correct, only larger).
    /// The conduit entries for subscribers of type `Downstream`, made on first use.
    @inlinable
    func entries<Downstream: Subscriber>(
        for downstream: Downstream.Type, in state: inout State
    ) -> SubjectConduitEntries<Output, Failure> where Downstream.Input == Output, Downstream.Failure == Failure {
        entries(for: ObjectIdentifier(Downstream.self), in: &state) { demandAcknowledged in
            SubjectConduitEntries(
                for: Downstream.self, registry: self.state, deliveryLock: deliveryLock, kind: kind,
                demandAcknowledged: demandAcknowledged)
        }
    }

    /// The conduit entries of ``SubjectSink``s, made on first use.
    @inlinable
    func sinkEntries(in state: inout State) -> SubjectConduitEntries<Output, Failure> {
        entries(for: ObjectIdentifier(SubjectSinkBase<Output, Failure>.self), in: &state) { demandAcknowledged in
            SubjectConduitEntries(
                forSinksWith: self.state, deliveryLock: deliveryLock, kind: kind, demandAcknowledged: demandAcknowledged
            )
        }
    }

    /// The entries whose `downstreamType` is `key`, or those `make` makes (given whether the subject has seen
    /// downstream demand), kept for the next subscriber while fewer than 16 are kept.
    @inlinable
    func entries(
        for key: ObjectIdentifier, in state: inout State, make: (Bool) -> SubjectConduitEntries<Output, Failure>
    ) -> SubjectConduitEntries<Output, Failure> {
        for entries in state.entries where entries.downstreamType == key {
            return entries
        }
        let made = make(state.upstreamDemandRequested)
        if state.entries.count < 16 {
            state.entries.append(made)
        }
        return made
    }

    @inlinable
    package func send(_ value: Output) {
        let (conduits, replaced) = state.withCriticalSection { $0.send(value) }
        // The replaced value is released here, after the lock (its deinit may be user code).
        withExtendedLifetime(replaced) {}
        deliver(value, to: conduits)
    }

    /// Makes `value` the current value, also after a completion (CurrentValueSubject's `value` setter, as in
    /// Combine), and sends it to the subscribers unless the subject has completed.
    @inlinable
    package func setCurrent(_ value: Output) {
        let (conduits, replaced) = state.withCriticalSection { $0.setCurrent(value) }
        withExtendedLifetime(replaced) {}
        deliver(value, to: conduits)
    }

    @inlinable
    func deliver(_ value: Output, to conduits: [SubjectConduit<Output, Failure>]) {
        // Performance: the snapshot keeps every conduit alive for the whole loop, so each one is borrowed from it
        // instead of retained and released per delivery. `RawReference.forEachBorrowed` is not `rethrows`, is always
        // inlined and calls the per-conduit closure from a closure literal of its own, so the closure is inlined
        // here (a helper that passed it on to the rethrowing borrow as it was cost +14 instructions per value on
        // subject-map-filter-sink; see "Raw memory" in Benchmarks/README.md).
        RawReference.forEachBorrowed(in: conduits) { $0.offer(value) }
    }

    // Upstream subscriptions are neither cancelled nor released: as in Apple's Combine, they stay with the subject
    // (their values are ignored from now on) until it goes away and cancels them.
    @inlinable
    package func send(completion: Subscribers.Completion<Failure>) {
        let conduits = state.withCriticalSection { $0.complete(completion) }
        for conduit in conduits {
            conduit.finish(completion)
        }
    }

    // As in Apple's Combine, every subscription handed over is kept (strongly, also after the completion, also one
    // handed over after it) until the subject goes away and cancels it; a PassthroughSubject asks for `.unlimited`
    // only once a subscriber has asked for something, and asks the subscriptions it received before then
    // (`takeFirstDemand`). Connections made by `subscribe(_:)` that have ended are dropped (`SubjectUpstreams`).
    @inlinable
    package func send(subscription: Subscription) {
        let (demanded, dropped) = state.withCriticalSection { $0.addUpstream(subscription) }
        withExtendedLifetime(dropped) {}
        if demanded {
            CalloutCheck.assertNoLockHeld("subject requesting from an upstream subscription")
            subscription.request(.unlimited)
        }
    }

    /// Takes `conduit` out of the subscriber list in `registry` (a cancelled subscription leaving).
    @inlinable
    static func remove(_ conduit: SubjectConduit<Output, Failure>, from registry: LockedBox<State>) {
        let removed = registry.withCriticalSection { $0.remove(conduit) }
        withExtendedLifetime(removed) {}
    }
}

/// The subscription a subject hands a subscriber of type `Downstream`.
@usableFromInline
typealias SubjectSubscriptionOf<Downstream: Subscriber> =
    SubjectSubscription<Downstream, SubjectSubscriptionState<EmitterStateMachine<Downstream>>>

/// A subject subscription's emitter state as it is stored: the owner word, then the state machine. Laid out as
/// UntangleSync's `WordAndValue<Machine>` (a word, then the machine at its alignment), which is how
/// `SubjectSubscription.inlineState` reaches both (checked by SubjectSubscriptionLayoutTests).
//
// Performance: the word is a plain `Int` here, though it is changed atomically (through `InlineOwnedState`, by its
// address, as `WordAndValue`'s `Atomic` is): destroying an `Atomic<Int>` ran its generic deinit unspecialized in a
// subscription's deinit (98 instructions with its two associated-type lookups; 211 fewer per subscribe and cancel
// without it); an `Int` needs nothing.
@usableFromInline
struct SubjectSubscriptionState<Machine> {
    @usableFromInline var word: Int
    @usableFromInline var machine: Machine

    @inlinable
    init(word: Int, machine: consuming Machine) {
        self.word = word
        self.machine = machine
    }
}

/// The subscription a subject hands each subscriber; `State` is always
/// `SubjectSubscriptionState<EmitterStateMachine<Downstream>>` (see ``SubjectSubscriptionOf``).
//
// Performance: the state's type is a generic parameter of its own, not spelled from `Downstream` in the stored
// property, because of what the deinit costs. A generic class's deinit is compiled once, unspecialized, and destroys
// its stored properties through their type metadata: for a property of type
// `WordAndValue<EmitterStateMachine<Downstream>>` (as it was) it asked the runtime for that metadata and for the
// machine's (`swift_getGenericMetadata`, which hashes the arguments and searches a cache: 328 instructions each, 22%
// of a subscribe and cancel). A property whose type is a generic parameter finds its metadata in the class's own
// metadata (one load): the deinit then destroys the state through its value witness with no lookup. The constrained
// initializers make `State` that one type.
@usableFromInline
final class SubjectSubscription<Downstream: Subscriber, State>:
    SubjectConduit<Downstream.Input, Downstream.Failure>, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Machine = EmitterStateMachine<Downstream>

    // The subscriber's emitter state (owner word and state machine), inline, under the delivery lock that the
    // subject shares among its subscribers (in the entries). It is reached through its address (`inlineState`),
    // which does not move while the object lives: the owner word is changed atomically by threads that hold no lock,
    // and the state machine is read in place by the thread that owns the word. This is the first stored property of
    // this class, right after the base class's one reference, which is how `inlineState` finds it (checked in init
    // and by SubjectSubscriptionLayoutTests).
    //
    // Memory: no lock, no object header and no allocation per subscriber for the state (an emitter object of its
    // own with a `pthread_mutex_t` took 112 bytes; a separate raw block 64). The price: a subject's subscribers share
    // one lock on their locked paths (bounded demand, queued values, completion, cancel); their lock-free path
    // (unlimited demand, nothing queued) takes no lock at all.
    //
    // Unchecked: after init, nothing accesses the property by name (only through its address, see above), and
    // its initialization paid a dynamic exclusivity check (`swift_beginAccess`, 76 instructions per subscribe).
    @exclusivity(unchecked) @usableFromInline var state: State

    @inlinable
    convenience init(downstream: Downstream, policy: EmitterBufferPolicy)
    where State == SubjectSubscriptionState<Machine> {
        self.init(machine: EmitterStateMachine(downstream: downstream, policy: policy), word: 0)
    }

    /// A subscription for a sink that adopts it without a subscription callout (see `SubjectCore.subscribeSink`).
    @inlinable
    convenience init(startedSink sink: Downstream, policy: EmitterBufferPolicy)
    where State == SubjectSubscriptionState<Machine> {
        // The machine starts fast-eligible, so the word starts with the fast bit and no owner: the state a critical
        // section would leave it in.
        self.init(
            machine: EmitterStateMachine(startedWithUnlimitedDemand: sink, policy: policy),
            word: SerialEmitter<SubjectEmitterStorage<Downstream>>.fastBit)
    }

    @inlinable
    init(machine: consuming Machine, word: Int) where State == SubjectSubscriptionState<Machine> {
        state = SubjectSubscriptionState(word: word, machine: machine)
        super.init()
        assert(isInlineStateAddress(of: &state), "SubjectSubscription layout")
        // Counted like the emitter objects, so that leak checks see subject subscriptions.
        #if DEBUG
            LiveObjects.increment()
        #endif
    }

    deinit {
        #if DEBUG
            LiveObjects.decrement()
        #endif
    }

    /// Whether `inlineState` is where `state` is: the word at the start, the machine where `WordAndValue` puts it.
    @inlinable
    func isInlineStateAddress(of state: inout SubjectSubscriptionState<Machine>) -> Bool {
        inlineState.isAddress(of: &state, valueAt: \.machine)
    }

    /// `state`, by its address: the first stored property after the base class's one reference
    /// (`entriesReference`).
    @inlinable
    var inlineState: InlineOwnedState<Machine> {
        InlineOwnedState(inStoredPropertiesOf: self, afterReferences: 1)
    }

    /// The subscriber's emitter over this subscription's state. Valid while the subscription lives (whoever calls
    /// into it keeps it alive for the call).
    @inlinable
    var emitter: SerialEmitter<SubjectEmitterStorage<Downstream>> {
        SerialEmitter(
            storage: SubjectEmitterStorage(
                lock: withEntries { UnretainedLock($0.deliveryLock) }, state: inlineState))
    }

    @inlinable
    override func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        emitter.complete(completion, order: .afterDemandedValues)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        withEntries { $0.controlEntry(self, demand) }
    }

    @inlinable
    func cancel() {
        withEntries { $0.controlEntry(self, nil) }
    }

    /// The subject's name ("PassthroughSubject", "CurrentValueSubject", ...), as in Combine.
    @usableFromInline
    var description: String { withEntries { $0.kind.name } }

    /// The subject (described by its type: a subscription does not keep its subject), the subscriber and its
    /// outstanding demand, as in Combine; the subject and subscriber are nil once the subscription ended.
    @usableFromInline
    var customMirror: Mirror {
        let kind = withEntries { $0.kind }
        let (downstream, demand) = emitter.critical { ($0.downstream, $0.demand) }
        let subscriber = downstream?.subscriber
        guard kind.mirrorsSubject else {
            return Mirror(self, children: [("downstream", subscriber as Any)])
        }
        let subject = downstream.map { _ in "\(kind.name)<\(Downstream.Input.self), \(Downstream.Failure.self)>" }
        return Mirror(subjectLike: self, parent: subject as Any, downstream: subscriber as Any, ("demand", demand))
    }

    /// The description.
    @usableFromInline
    var playgroundDescription: Any { description }
}

/// Which subject a ``SubjectCore`` serves: what its subscriptions are called, and the few behaviours in which
/// Combine's subjects differ.
///
/// **Demand:** see ``requestsUpstreamOnFirstDemand``.
/// **Thread safety:** a value.
@usableFromInline
package enum SubjectKind: UInt8, Sendable {
    case passthrough
    case currentValue
    /// `@Published`'s subject.
    case published
    case observableObjectPublisher
    /// Any other user of the machinery (its subscriptions are "SubjectSubscription").
    case plain

    @inlinable
    var name: String {
        switch self {
        case .passthrough: return "PassthroughSubject"
        case .currentValue: return "CurrentValueSubject"
        case .published: return "PublishedSubject"
        case .observableObjectPublisher: return "ObservableObjectPublisher"
        case .plain: return "SubjectSubscription"
        }
    }

    /// A PassthroughSubject asks its upstream subscriptions for `.unlimited` only after a downstream request.
    @inlinable
    var requestsUpstreamOnFirstDemand: Bool { self == .passthrough }

    /// Whether the subscription's mirror shows the subject and the demand (only the subscriber otherwise).
    @inlinable
    var mirrorsSubject: Bool { self != .observableObjectPublisher }
}

/// A subject subscription's emitter state: the owner word and the state machine, inline in the subscription (an
/// ``InlineOwnedState``, which does the pointer work), guarded by the lock the subject shares among its subscribers.
///
/// ```swift
/// let emitter = SerialEmitter(storage: SubjectEmitterStorage(lock: UnretainedLock(lock), state: inlineState))
/// ```
///
/// **Thread safety:** as ``EmitterStorage``; the lock and the memory must outlive every use (the subscription keeps
/// both).
@usableFromInline
struct SubjectEmitterStorage<Downstream: Subscriber>: EmitterStorage {
    @usableFromInline typealias Machine = EmitterStateMachine<Downstream>

    @usableFromInline let lock: UnretainedLock
    @usableFromInline let state: InlineOwnedState<Machine>

    @inlinable
    init(lock: UnretainedLock, state: InlineOwnedState<Machine>) {
        self.lock = lock
        self.state = state
    }

    // Performance: the two closures are called here, not passed on to `InlineOwnedState`'s own `withCriticalSection`
    // and `withUnlockedValue`: passed on one level further, the emitter's delivery closure was no longer inlined
    // into the subject's offer, with the subscriber's `receive` in it (measured: +25 instructions per value on
    // subject-map-filter-sink).
    @inlinable
    func withCriticalSection<Result>(_ body: (inout Machine, WordAccess) -> Result) -> Result {
        let machine = state.value
        let word = state.word
        return lock.withCriticalSection { body(&machine.pointee, word) }
    }

    @inlinable
    func compareExchangeWord(expected: Int, desired: Int) -> Bool {
        state.claim(expected: expected, desired: desired)
    }

    @inlinable
    func loadWord() -> Int {
        state.loadWord()
    }

    @inlinable
    func withUnlockedValue<Result>(_ body: (UnlockedValue<Machine>) -> Result) -> Result {
        body(UnlockedValue(state.value))
    }
}
