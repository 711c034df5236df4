import UntangleSync

/// What an ``Emitter`` keeps for values that arrive when the subscriber cannot take them yet.
///
/// **Demand:** see each case.
/// **Thread safety:** a value.
@usableFromInline
package enum EmitterBufferPolicy: Sendable {
    /// A value is accepted only if the subscriber has demand not yet reserved by queued values; otherwise it is
    /// dropped (PassthroughSubject, as in Apple's Combine).
    case dropWithoutDemand
    /// Like `dropWithoutDemand`, but one value beyond demand is kept and replaced by newer ones, so the subscriber
    /// receives the latest value when it next asks with `request` (CurrentValueSubject). Demand returned by
    /// `receive(_:)` does not deliver it (as in Apple's Combine): it goes to the values sent after it, and the first
    /// of those replaces the kept one.
    case keepLatest
    /// Every value is queued until demand allows it (for sources that only produce what was requested, so the queue
    /// stays bounded by the requests: merge, flatMap, Future).
    case unbounded
}

/// How many values an ``Emitter`` keeps waiting for demand when they are queued with
/// ``SerialEmitter/enqueue(_:limit:)``, and which one goes when they are that many: the general form of the
/// ``EmitterBufferPolicy`` cases, for the producers of UntangleExtras (`Publishers.Create`, `ReplaySubject`).
/// `dropWithoutDemand` is `.oldest(0)` (or `.newest(0)`), `keepLatest` is `.newest(1)`, `unbounded` is ``unbounded``.
///
/// The limit travels with each call rather than in the state machine: an `Int` there would add a word to every
/// subject subscription (the machine's size is pinned by EmitterStateMachineLayoutTests); the few emitters that need
/// a limit keep it in their own subscription.
///
/// ```swift
/// let (accepted, dropped) = emitter.enqueue(value, limit: .newest(16))
/// ```
///
/// **Demand:** values covered by demand are never dropped; the limit counts only the values beyond it.
/// **Thread safety:** a value.
@usableFromInline
package struct EmitterWaitingLimit: Sendable, Equatable {
    /// Which value goes when the waiting values are at the limit.
    @usableFromInline
    package enum Overflow: Sendable, Equatable {
        /// The oldest waiting value is dropped to make room for the new one (with a limit of 0: the new one).
        case dropOldest
        /// The new value is dropped.
        case dropNewest
    }

    /// The most values kept waiting for demand.
    @usableFromInline package let count: Int
    @usableFromInline package let overflow: Overflow

    @inlinable
    package init(count: Int, overflow: Overflow) {
        precondition(count >= 0, "an emitter's waiting limit must not be negative (got \(count))")
        self.count = count
        self.overflow = overflow
    }

    /// Every value waits until it is requested.
    @inlinable
    package static var unbounded: EmitterWaitingLimit { EmitterWaitingLimit(count: Int.max, overflow: .dropNewest) }

    /// At most `n` values wait; a new one beyond them drops the oldest waiting one.
    @inlinable
    package static func newest(_ n: Int) -> EmitterWaitingLimit { EmitterWaitingLimit(count: n, overflow: .dropOldest) }

    /// At most `n` values wait; once they are that many, new ones are dropped.
    @inlinable
    package static func oldest(_ n: Int) -> EmitterWaitingLimit { EmitterWaitingLimit(count: n, overflow: .dropNewest) }
}

/// When a completion accepted by an ``Emitter`` is delivered relative to values still queued.
@usableFromInline
package enum EmitterCompletionOrder: Sendable {
    /// After every queued value, waiting for demand if needed.
    case afterQueuedValues
    /// After the queued values that demand already covers; the rest are discarded.
    case afterDemandedValues
    /// Right away: queued values are discarded.
    case immediately
}

/// The pure state machine behind ``Emitter``: it decides, under the emitter's lock, which thread delivers which
/// signal; it never calls out. Every method returns an action that the caller performs after unlocking.
///
/// The model (see ThreadSafety.md): at most one thread, the *owner*, delivers to the downstream at a time. A thread
/// that signals while another thread owns the emitter queues its signal and returns at once; the owner picks it up
/// before giving up ownership. A signal from the owner's own thread (made from inside a callout) is delivered nested
/// when nothing is queued ahead of it, which keeps Apple Combine's depth-first order for reentrant sends.
///
/// Ownership itself lives in ``Emitter``'s lock-free owner word, not here: a value offered while ``isFastEligible``
/// is delivered by a thread that claims the word without the lock. `owner` is loaded from the word at the start of
/// every critical section and stored back at its end, so within one critical section this machine sees ownership as
/// if it held it itself. While anybody owns the emitter the downstream is never released here (the owner may be
/// using it in place): a cancel made meanwhile is recorded and finished by the owner (`next` answers `.cancelled`).
///
/// **Demand:** `demand` counts values the downstream asked for and has not received yet; a queued value consumes
/// demand when it is delivered. Completion needs no demand.
/// **Thread safety:** none: a value type always mutated under the emitter's lock.
@usableFromInline
package struct EmitterStateMachine<Downstream: Subscriber> {
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Completion = Subscribers.Completion<Downstream.Failure>

    /// Actions for a value offered by a producer.
    @usableFromInline
    enum OfferAction {
        /// The caller now owns the emitter: deliver the value, then ``Emitter`` drains what queued meanwhile.
        case deliverAsOwner(DownstreamReference<Downstream>)
        /// Same-thread reentrant send with nothing queued ahead: deliver nested, then add the returned demand.
        case deliverNested(DownstreamReference<Downstream>)
        /// Queued for the owner (or for a later request), or kept as the latest value.
        case queued
        /// Kept as the latest value in place of the one returned, which the caller releases after unlocking (its
        /// deinit may be user code).
        case queuedReplacing(Input)
        /// Not accepted (no demand, completed or cancelled); the value is handed back to be released outside the lock.
        case dropped
        /// `keepLatest`: the value took the place of the kept one, which waited for a request (see
        /// `keptLatest`) and is handed back to be released outside the lock; the caller now owns the emitter
        /// and drains (the value is queued, within demand).
        case replacingAsOwner(Input)
    }

    /// Actions for a request or for a completion: start draining, or nothing.
    @usableFromInline
    enum DrainAction {
        case none
        /// The caller became the owner and must drain.
        case drain
        /// The owner's thread asked from inside `receive(subscription:)`: drain now, nested, then hand ownership
        /// back to the subscription callout.
        case drainNestedInSubscriptionCallout
    }

    /// The next thing the owner delivers.
    @usableFromInline
    enum Next {
        case value(DownstreamReference<Downstream>, Input)
        /// Several values, taken out of the queue in one critical section, to deliver in order after unlocking; the
        /// last deliverable value stays queued behind them (see `next`). Stop delivering them as soon as the owner
        /// word loses ``batchBit`` (a cancel).
        case values(DownstreamReference<Downstream>, RingBuffer<Input>)
        case completion(DownstreamReference<Downstream>, Completion, discarded: RingBuffer<Input>)
        /// Nothing deliverable now; ownership was released.
        case idle
        /// Cancelled while this thread owned the emitter: ownership was released; the downstream and the queue are
        /// handed back to be released outside the lock.
        case cancelled(DownstreamReference<Downstream>, RingBuffer<Input>)
    }

    /// Where the subscription callout (`receive(subscription:)`) stands. Nothing is delivered before it starts;
    /// while it runs, the thread making it owns the emitter.
    @usableFromInline
    enum SubscriptionPhase: UInt8 {
        /// `receive(subscription:)` has not started: signals are queued (or dropped) but nothing is delivered.
        case waiting
        /// The owner is inside `receive(subscription:)` and not draining: a request it makes there drains nested.
        case inCallout
        /// The owner drains nested, from a request made inside `receive(subscription:)`; when the drain is over,
        /// ownership goes back to the callout (`inCallout`).
        case drainingInCallout
        /// The callout returned (or never had to be made): the owner, whoever it is, drains as usual.
        case started
    }

    /// How far the emitter is from its end. Legal moves: `open` to `completing` (a completion accepted), `open` or
    /// `completing` to `cancelling` (cancelled while a thread owns the emitter) or to `finished` (cancelled while
    /// unowned), `completing` to `finished` (the completion taken for delivery), `cancelling` to `finished` (the
    /// owner took the lock again). `finished` exactly when `downstream` is nil.
    @usableFromInline
    enum Termination {
        /// Values are accepted.
        case open
        /// A completion was accepted; no more values are; the owner delivers it after the queued values.
        case completing(Completion)
        /// `cancel()` ran while a thread owned the emitter: the owner releases the downstream when it next takes
        /// the lock (it may be delivering to it in place right now).
        case cancelling
        /// The downstream is released (completion delivered, or cancelled).
        case finished
    }

    // The first stored property: `Emitter`'s fast path reads it in place, at offset 0 (pinned by
    // EmitterStateMachineLayoutTests, which run in every `swift test`).
    // Memory: the word-sized fields come first and the small ones last, so that they pack (38 bytes for a
    // `Never`-failing downstream, 39 with the five flags the two phases replaced; pinned by the same tests).
    @usableFromInline var downstream: DownstreamReference<Downstream>?
    @usableFromInline var demand = Subscribers.Demand.none
    @usableFromInline var queue = RingBuffer<Input>()
    /// The owner's `ThreadID.bits`, 0 for none (the owner word's value without its flag; see ``Emitter``).
    @usableFromInline var ownerBits = 0
    @usableFromInline var termination = Termination.open
    @usableFromInline let policy: EmitterBufferPolicy
    @usableFromInline var subscriptionPhase = SubscriptionPhase.waiting
    /// How the downstream is held (a `Subscribers.Sink` or a subject's sink subscription without a box, see
    /// ``DownstreamReference``), decided once here so that the lock-free path reads a byte instead of comparing
    /// type metadata per value. Never changes.
    @usableFromInline let downstreamHolding: DownstreamHolding
    /// `keepLatest` only: where the last queued value stands when it was kept beyond demand. Apple's
    /// CurrentValueSubject delivers a value it could not deliver (no demand) when the subscriber next requests, but
    /// not when the subscriber returns demand from `receive(_:)`: that demand goes to the next value sent, and the
    /// missed one is forgotten. (One byte in the machine's padding: its stride is unchanged.)
    @usableFromInline
    enum KeptLatest: UInt8 {
        /// Nothing waits for a request: every queued value is deliverable within demand.
        case deliverable
        /// The last queued value is the kept one and only a `request` makes it deliverable; demand that
        /// `receive(_:)` returned meanwhile is for the values sent after it.
        case awaitsRequest
    }

    @usableFromInline var keptLatest = KeptLatest.deliverable

    /// Set in `ownerBits` (and so in the owner word) while the owner delivers a batch (`Next.values`) outside the
    /// lock; a cancel clears it, which tells the owner, between two values and without the lock, to stop. A
    /// `pthread_t` is at least 8-aligned, so the bit is free (`SerialEmitter.fastBit` is bit 0).
    @inlinable
    static var batchBit: Int { 2 }

    /// The thread that owns the emitter, if any.
    @inlinable
    var owner: ThreadID? {
        get { ThreadID(bits: ownerBits & ~Self.batchBit) }
        set { ownerBits = newValue?.bits ?? 0 }
    }

    @inlinable
    package init(downstream: Downstream, policy: EmitterBufferPolicy) {
        // Decided once (for a class subscriber in unspecialized code, each comparison looks a type's metadata up).
        let holding = DownstreamReference<Downstream>.holding
        self.downstream = DownstreamReference(downstream, holding: holding)
        self.policy = policy
        downstreamHolding = holding
    }

    /// A machine whose subscription callout is already over and whose downstream asked for `.unlimited` (a subject's
    /// `Sink`, see `SubjectCore.subscribeSink`): fast-eligible from the start, so its owner word starts as
    /// `SerialEmitter.fastBit`.
    @inlinable
    init(startedWithUnlimitedDemand downstream: Downstream, policy: EmitterBufferPolicy) {
        self.init(downstream: downstream, policy: policy)
        subscriptionPhase = .started
        demand = .unlimited
    }

    /// A machine for a subscription that is its own downstream (``SubjectSink``), started with unlimited demand as
    /// `init(startedWithUnlimitedDemand:policy:)`; its downstream is set by ``adoptSelfHeldDownstream(_:)`` right
    /// after the subscription's initialization, before the subscription is published (until then it reads as
    /// released, and nothing can reach it).
    @inlinable
    init(startedWithUnlimitedDemandForSelfHeldDownstreamWith policy: EmitterBufferPolicy) {
        downstream = nil
        self.policy = policy
        downstreamHolding = DownstreamReference<Downstream>.holding
        subscriptionPhase = .started
        demand = .unlimited
    }

    /// Sets the downstream of a machine made by `init(startedWithUnlimitedDemandForSelfHeldDownstreamWith:)`.
    @inlinable
    mutating func adoptSelfHeldDownstream(_ object: AnyObject) {
        precondition(
            downstream == nil && downstreamHolding == .subjectSink,
            "EmitterStateMachine: a self-held downstream is adopted once, by a subject's sink subscription")
        downstream = DownstreamReference(heldUnboxed: object)
    }

    /// Makes `thread` the owner of a machine made by `init(startedWithUnlimitedDemandForSelfHeldDownstreamWith:)`,
    /// before its subscription is published: that thread then delivers the subject's current value as the owner
    /// (anything offered meanwhile queues behind it), then drains.
    @inlinable
    mutating func claimBeforePublishing(on thread: ThreadID) {
        precondition(
            subscriptionPhase == .started && owner == nil && queue.isEmpty && isOpen,
            "EmitterStateMachine: claimed before publishing only when fresh and self-held")
        owner = thread
    }

    /// Whether the downstream is gone (cancelled, or completion delivered).
    @inlinable
    var isReleased: Bool { downstream == nil }

    /// Whether a value offered now may be delivered straight away by whichever thread claims ownership, with no
    /// change to this state: the subscription callout is over, demand is unlimited (so delivering and adding the
    /// returned demand leave it unchanged), and nothing is queued or pending that would have to go first.
    @inlinable
    var isFastEligible: Bool {
        subscriptionPhase == .started && isOpen && demand == .unlimited && queue.isEmpty
    }

    /// Whether values are accepted (no completion accepted, not cancelled); the downstream is then present.
    @inlinable
    var isOpen: Bool {
        if case .open = termination { return true }
        return false
    }

    /// The accepted completion not yet taken for delivery, if any.
    @inlinable
    var pendingCompletion: Completion? {
        if case .completing(let completion) = termination { return completion }
        return nil
    }

    /// Whether the downstream is still held and not being released: open or completing.
    @inlinable
    var isLive: Bool {
        switch termination {
        case .open, .completing: return true
        case .cancelling, .finished: return false
        }
    }

    /// The owner starts the subscription callout. Returns the downstream to call, or nil if already cancelled.
    @inlinable
    mutating func startSubscription(on thread: ThreadID) -> DownstreamReference<Downstream>? {
        guard subscriptionPhase == .waiting else { impossibleEvent("EmitterStateMachine: startSubscription twice") }
        guard let downstream else {
            subscriptionPhase = .started
            return nil
        }
        assert(owner == nil, "nothing is delivered before the subscription callout, so nobody owns the emitter")
        owner = thread
        subscriptionPhase = .inCallout
        return downstream
    }

    /// The subscription callout returned: from here the owner drains like any other.
    @inlinable
    mutating func subscriptionCalloutReturned() {
        guard subscriptionPhase == .inCallout else {
            impossibleEvent("EmitterStateMachine: subscriptionCalloutReturned outside the callout")
        }
        subscriptionPhase = .started
    }

    @inlinable
    mutating func offer(_ value: Input, on thread: ThreadID) -> OfferAction {
        // The downstream is copied out only when this call delivers (see `next`).
        guard isOpen else { return .dropped }
        assert(downstream != nil, "an open emitter holds its downstream")
        // Demand not yet promised to queued values (`.unlimited` minus anything is still `.unlimited`).
        let unreserved = demand - (queue.count - (keptLatest == .awaitsRequest ? 1 : 0))
        switch policy {
        case .dropWithoutDemand:
            if unreserved == .none { return .dropped }
        case .keepLatest:
            if unreserved == .none {
                // The queue holds the values demand covers, plus at most one waiting value: replace the waiting one.
                if demand < queue.count {
                    return .queuedReplacing(queue.replaceLast(with: value))
                }
                queue.append(value)
                return .queued
            }
            if keptLatest == .awaitsRequest {
                // Demand returned by `receive(_:)` covers this value, not the kept one: Combine delivers it and
                // forgets the missed one. The value takes its place at the end of the queue, now within demand.
                keptLatest = .deliverable
                let stale = queue.replaceLast(with: value)
                guard owner == nil, subscriptionPhase == .started else { return .queuedReplacing(stale) }
                owner = thread
                return .replacingAsOwner(stale)
            }
        case .unbounded:
            break
        }
        guard subscriptionPhase != .waiting, queue.isEmpty, demand > .none else {
            queue.append(value)
            return .queued
        }
        switch owner {
        case nil:
            owner = thread
            demand -= 1
            return .deliverAsOwner(downstream.unsafelyUnwrapped)
        case thread?:
            demand -= 1
            return .deliverNested(downstream.unsafelyUnwrapped)
        case _?:
            queue.append(value)
            return .queued
        }
    }

    /// Offers a value under a waiting limit (`SerialEmitter.offer(_:limit:)`): delivered by the caller, as owner,
    /// when nobody owns the emitter and nothing is queued ahead of it; otherwise queued as by ``enqueue(_:limit:)``,
    /// also on the owner's own thread (never `.deliverNested`).
    @inlinable
    mutating func offer(_ value: Input, on thread: ThreadID, limit: EmitterWaitingLimit) -> OfferAction {
        guard isOpen, subscriptionPhase != .waiting, owner == nil, queue.isEmpty, demand > .none else {
            return enqueue(value, limit: limit)
        }
        owner = thread
        demand -= 1
        return .deliverAsOwner(downstream.unsafelyUnwrapped)
    }

    /// Queues a value without delivering it, whoever owns the emitter, keeping at most `limit.count` values beyond
    /// demand (see ``EmitterWaitingLimit``). Answers `.queued`, `.queuedReplacing` (the oldest waiting value made
    /// room) or `.dropped`, never a delivery: the caller hands the queue to an owner with `claimOwnership`.
    @inlinable
    mutating func enqueue(_ value: Input, limit: EmitterWaitingLimit) -> OfferAction {
        guard isOpen else { return .dropped }
        // Beyond demand: the queue already holds as many values as were requested (so demand is finite).
        if demand - queue.count == .none {
            let covered = demand.max ?? 0
            if queue.count - covered >= limit.count {
                guard limit.count > 0, limit.overflow == .dropOldest else { return .dropped }
                // The oldest *waiting* value is the first one demand does not cover. Removed in place: the covered
                // values in front of it (usually few: an owner is delivering them) move one place back, with no
                // allocation, however many values wait behind it.
                let dropped = queue.remove(at: covered)
                queue.append(value)
                return .queuedReplacing(dropped)
            }
        }
        queue.append(value)
        return .queued
    }

    @inlinable
    mutating func complete(_ completion: Completion, order: EmitterCompletionOrder, on thread: ThreadID)
        -> (DrainAction, discarded: [Input])
    {
        guard isOpen else { return (.none, []) }
        termination = .completing(completion)
        var discarded: [Input] = []
        if keptLatest == .awaitsRequest {
            // The kept value waited for a request that can no longer deliver it.
            keptLatest = .deliverable
            discarded = queue.truncate(keepingFirst: queue.count - 1)
        }
        switch order {
        case .afterQueuedValues:
            break
        case .afterDemandedValues:
            discarded += queue.truncate(keepingFirst: demand.max ?? queue.count)
        case .immediately:
            discarded += queue.truncate(keepingFirst: 0)
            // A batch being delivered is cut short too (see `batchBit`).
            ownerBits &= ~Self.batchBit
        }
        return (claimOwnership(on: thread), discarded)
    }

    @inlinable
    mutating func request(_ more: Subscribers.Demand, on thread: ThreadID) -> DrainAction {
        guard isLive else { return .none }
        demand += more
        keptLatest = .deliverable
        return claimOwnership(on: thread)
    }

    /// Adds the demand a nested delivery returned (no ownership change).
    @inlinable
    mutating func addReturnedDemand(_ more: Subscribers.Demand) {
        if downstream != nil {
            addDemandFromReceive(more)
        }
    }

    /// Adds demand returned by `receive(_:)`; under `keepLatest` a value kept beyond demand now waits for a request
    /// (see ``keptLatest``).
    @inlinable
    @inline(__always)
    mutating func addDemandFromReceive(_ more: Subscribers.Demand) {
        if more > .none, policy == .keepLatest, demand < queue.count {
            keptLatest = .awaitsRequest
        }
        demand += more
    }

    // Ownership is claimed only when there is something to deliver and nobody owns the emitter; a claim from the
    // owner's own thread is honoured only during the subscription callout (the drain loop is not running yet).
    // Everywhere else the running owner will see the new state when it next takes the lock.
    @inlinable
    mutating func claimOwnership(on thread: ThreadID) -> DrainAction {
        guard subscriptionPhase != .waiting, hasDeliverable else { return .none }
        switch owner {
        case nil:
            assert(subscriptionPhase == .started, "the subscription callout's thread owns the emitter")
            owner = thread
            return .drain
        case thread? where subscriptionPhase == .inCallout:
            subscriptionPhase = .drainingInCallout
            return .drainNestedInSubscriptionCallout
        default:
            return .none
        }
    }

    @inlinable
    var hasDeliverable: Bool {
        (queue.count > (keptLatest == .awaitsRequest ? 1 : 0) && demand > .none)
            || (pendingCompletion != nil && queue.isEmpty)
    }

    /// The owner takes the next signal, or releases ownership when there is none. `returnedDemand` is what the
    /// previous delivery returned (folded in here to save a lock round-trip per value). With `batching`, several
    /// deliverable values are handed out at once (`.values`).
    @inlinable
    // Performance: the downstream is copied out (a retain of its box) only on the paths that deliver; the common
    // "nothing more" answer that ends every uncontended delivery copies nothing.
    //
    // Batches (contention: several threads queue values while one delivers): when three or more values are
    // deliverable, all but the last leave the queue together and their demand is taken at once, so the owner takes
    // the lock once per batch instead of once per value; the senders' critical sections stay as short as before
    // (append and leave). The last deliverable value stays queued, so that during the batch the queue is not empty
    // and everything behaves as it did with one value at a time: a reentrant send from the owner's thread queues
    // behind the batch (values queued ahead of it go first), the fast path stays off, and after the batch this
    // method delivers that last value (alone, or at the head of the next batch), where a reentrant send is delivered
    // nested again when nothing else queued. A cancel meanwhile clears `batchBit`, which the owner checks before
    // each value of the batch, so no value starts after a cancel returned (as before, where each value took the
    // lock); the rest of the batch is released by the owner outside the lock.
    mutating func next(
        returnedDemand: Subscribers.Demand, nestedInSubscriptionCallout: Bool, batching: Bool = false
    ) -> Next {
        ownerBits &= ~Self.batchBit
        // A nested drain runs exactly while the subscription callout drains; any other after the callout.
        guard ownerBits != 0, subscriptionPhase == (nestedInSubscriptionCallout ? .drainingInCallout : .started) else {
            impossibleEvent("EmitterStateMachine: next by a thread that does not own the emitter")
        }
        switch termination {
        case .finished:
            releaseOwnership(nestedInSubscriptionCallout)
            return .idle
        case .cancelling:
            termination = .finished
            let downstream = self.downstream.take().unsafelyUnwrapped
            releaseOwnership(nestedInSubscriptionCallout)
            return .cancelled(downstream, queue.takeAll())
        case .open, .completing:
            break
        }
        addDemandFromReceive(returnedDemand)
        // The kept value that waits for a request is not deliverable (it is the last one queued).
        let queued = queue.count - (keptLatest == .awaitsRequest ? 1 : 0)
        if batching, !nestedInSubscriptionCallout {
            let deliverable = demand.max.map { Swift.min($0, queued) } ?? queued
            if deliverable >= 3 {
                // All but the last deliverable value; any values beyond demand stay queued behind it.
                let kept = queue.truncate(keepingFirst: deliverable - 1)
                let batch = queue.takeAll()
                for value in kept {
                    queue.append(value)
                }
                demand -= deliverable - 1
                ownerBits |= Self.batchBit
                return .values(downstream.unsafelyUnwrapped, batch)
            }
        }
        if demand > .none, queued > 0, let value = queue.popFirst() {
            demand -= 1
            return .value(downstream.unsafelyUnwrapped, value)
        }
        if queue.isEmpty, let completion = pendingCompletion {
            termination = .finished
            let downstream = self.downstream.take().unsafelyUnwrapped
            releaseOwnership(nestedInSubscriptionCallout)
            return .completion(downstream, completion, discarded: queue.takeAll())
        }
        releaseOwnership(nestedInSubscriptionCallout)
        return .idle
    }

    @inlinable
    mutating func releaseOwnership(_ nestedInSubscriptionCallout: Bool) {
        if nestedInSubscriptionCallout {
            subscriptionPhase = .inCallout
        } else {
            owner = nil
        }
    }

    /// Cancels: closes, drops the queue, and drops the downstream unless a thread owns the emitter (then the owner
    /// drops it when it next takes the lock: it may be delivering to it in place right now). Returns whether this
    /// call cancelled (false if the emitter had already ended) and what to release outside the lock.
    @inlinable
    mutating func cancel() -> (cancelled: Bool, released: DownstreamReference<Downstream>?, queue: RingBuffer<Input>) {
        guard isLive else { return (false, nil, RingBuffer()) }
        let queue = self.queue.takeAll()
        keptLatest = .deliverable
        if owner != nil {
            termination = .cancelling
            // A batch being delivered stops before its next value (see `batchBit`).
            ownerBits &= ~Self.batchBit
            return (true, nil, queue)
        }
        termination = .finished
        return (true, downstream.take(), queue)
    }
}

/// The downstream of an ``Emitter``, held by one reference: the subscriber itself when it is a
/// `Subscribers.Sink` (the usual end of a chain) or a ``SubjectSink`` (a subject's sink subscription, its own
/// downstream), otherwise an immutable ``DownstreamBox`` holding it.
///
/// Performance: a subscriber called through a `let` of a class instance is borrowed in place; called through the
/// state machine's `var`, it would be copied first (a retain and release of everything it holds: for a
/// `map → filter → sink` chain, two closure contexts and the sink) because the call might change that `var`. A sink
/// is such an instance already, so it needs no box: one allocation less per `subject.sink { }`. Other class
/// subscribers still get a box: reached through a generic cast, the compiler copies them around every call it cannot
/// inline (measured: +15 ns per value for flatMap's subscription), while a sink's `receive` is inlined.
///
/// **Thread safety:** immutable.
@usableFromInline
package struct DownstreamReference<Downstream: Subscriber> {
    @usableFromInline typealias Sink = Subscribers.Sink<Downstream.Input, Downstream.Failure>

    /// The sink itself, or the box holding any other subscriber.
    @usableFromInline let object: AnyObject

    @usableFromInline typealias SubjectSink = SubjectSinkBase<Downstream.Input, Downstream.Failure>

    /// `downstream`, held as `holding` (``holding``, which the caller computed) says.
    @inlinable
    init(_ downstream: Downstream, holding: DownstreamHolding) {
        if holding != .boxed {
            object = _unsafeReferenceCast(downstream, to: AnyObject.self)
        } else {
            object = DownstreamBox(downstream)
        }
    }

    /// The downstream as the object that is it (a ``SubjectSink``, which is its own downstream).
    @inlinable
    init(heldUnboxed object: AnyObject) {
        self.object = object
    }

    // For a subscriber that is not a class instance this is `false` at compile time once specialized (the size and
    // `_canBeClass` are folded), so structs pay nothing per value; for a class, two metadata addresses are compared
    // (an `is` cast of the metatype would call into the runtime on every value). Unspecialized code (debug builds)
    // compares too, so both paths are exercised in debug builds as well.
    @inlinable
    static var isSink: Bool {
        mayBeSink && ObjectIdentifier(Downstream.self) == ObjectIdentifier(Sink.self)
    }

    /// How a `Downstream` is held: without a box when it is a `Subscribers.Sink` or a subject's sink subscription
    /// (the two ends of a chain whose `receive` the emitter calls directly), in a ``DownstreamBox`` otherwise.
    /// Constant `.boxed` once specialized for a subscriber that is not a class instance; for a class, up to two
    /// metadata addresses are compared (once per subscription: the machine keeps the answer).
    @inlinable
    static var holding: DownstreamHolding {
        guard mayBeSink else { return .boxed }
        let type = ObjectIdentifier(Downstream.self)
        if type == ObjectIdentifier(Sink.self) {
            return .sink
        }
        if type == ObjectIdentifier(SubjectSink.self) {
            return .subjectSink
        }
        return .boxed
    }

    /// Whether `Downstream` can be a sink at all: `false` at compile time, once specialized, for a subscriber that
    /// is not a class instance, so the callers' check costs nothing for those.
    @inlinable
    static var mayBeSink: Bool {
        RawReference.mayBeClassReference(Downstream.self)
    }

    /// Delivers `input` to the subscriber that `object` (a `DownstreamReference`'s object, borrowed) stands for;
    /// `holding` is ``holding``, which the caller knows already (the emitter keeps it in its state).
    @inlinable
    @inline(__always)
    static func receive(
        _ input: Downstream.Input, through object: AnyObject, holding: DownstreamHolding
    ) -> Subscribers.Demand {
        if mayBeSink && holding != .boxed {
            if holding == .sink {
                return RawReference.downcast(object, to: Sink.self).receive(input)
            }
            return RawReference.downcast(object, to: SubjectSink.self).receive(input)
        }
        return RawReference.downcast(object, to: DownstreamBox<Downstream>.self).value.receive(input)
    }

    @inlinable
    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        Self.receive(input, through: object, holding: Self.holding)
    }

    /// The subscriber itself (for mirrors; not for delivery, which borrows it through `object`).
    @inlinable
    var subscriber: Downstream {
        if Self.holding != .boxed {
            return object as! Downstream
        }
        return RawReference.downcast(object, to: DownstreamBox<Downstream>.self).value
    }

    @inlinable
    func receive(subscription: Subscription) {
        switch Self.holding {
        case .sink:
            RawReference.downcast(object, to: Sink.self).receive(subscription: subscription)
        case .subjectSink:
            RawReference.downcast(object, to: SubjectSink.self).receive(subscription: subscription)
        case .boxed:
            RawReference.downcast(object, to: DownstreamBox<Downstream>.self).value.receive(subscription: subscription)
        }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        switch Self.holding {
        case .sink:
            RawReference.downcast(object, to: Sink.self).receive(completion: completion)
        case .subjectSink:
            RawReference.downcast(object, to: SubjectSink.self).receive(completion: completion)
        case .boxed:
            RawReference.downcast(object, to: DownstreamBox<Downstream>.self).value.receive(completion: completion)
        }
    }
}

/// How an ``EmitterStateMachine`` holds its downstream (see ``DownstreamReference/holding``).
@usableFromInline
package enum DownstreamHolding: UInt8 {
    /// In a ``DownstreamBox``.
    case boxed
    /// The `Subscribers.Sink` itself.
    case sink
    /// The ``SubjectSink`` itself: a subject's subscription that is its own downstream.
    case subjectSink
}

/// A subscriber other than a `Subscribers.Sink`, in an immutable box (see ``DownstreamReference``).
///
/// **Thread safety:** immutable.
@usableFromInline
package final class DownstreamBox<Downstream: Subscriber> {
    @usableFromInline let value: Downstream

    @inlinable
    init(_ value: Downstream) {
        self.value = value
    }
}
