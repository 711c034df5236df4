import UntangleSync

/// The pure state machine behind ``HopSubscription`` (`receive(on:)`, `delay`): its phase (Apple's), the upstream
/// subscription, the downstream and the upstream's completion the phase holds, the signals handed to the scheduler
/// and not yet handed to the downstream's emitter, and the batch drain's phase. It never calls out.
///
/// Phases, as Apple's Combine has them, except for `cancel()`: before the upstream's subscription arrives `request`
/// does nothing; once the upstream completed (*pending terminal*) the downstream's `request` does nothing either,
/// but values already scheduled are delivered and the demand they return is still requested upstream. `cancel()`
/// ends the stream in every phase (the threading contract's prompt cancel; Apple ignores it before the subscription
/// and once the upstream completed).
///
/// The completion is handed to the emitter only once its own scheduled action has run AND every value scheduled
/// before it has been offered: on a concurrent queue the completion's action may run before a value's action, and
/// handing the completion over first would drop that value.
///
/// **Demand:** not tracked here: requests pass straight upstream; the emitter is given unlimited demand (values
/// reach the downstream whatever it asked for, as in Apple's Combine).
/// **Thread safety:** none: a value type always mutated under its subscription's lock.
@usableFromInline
struct HopStateMachine<Input, Completion, Downstream> {
    /// The hop's phase. Legal moves: `awaiting` to `subscribed` (the upstream's subscription) or `terminal` (a
    /// cancel); `subscribed` to `completionScheduled` (the upstream's completion) or `terminal`;
    /// `completionScheduled` to `completionDue` (its action ran) or `terminal`; `completionDue` to `terminal` (the
    /// last value in flight was offered, or a cancel).
    @usableFromInline
    enum Phase: UInt8 {
        /// The upstream's subscription has not arrived: `subscription` is nil.
        case awaiting
        /// `subscription` is the upstream's.
        case subscribed
        /// The upstream completed (`completion`); its completion's scheduled action has not run yet.
        case completionScheduled
        /// The completion's action ran: `completion` is handed over once no value is in flight.
        case completionDue
        /// Cancelled, or the completion was handed over: nothing is held.
        case terminal
    }

    /// The batch drain of a DispatchQueue hop (see `HopSubscription.drainBatch`).
    @usableFromInline
    enum Drain {
        /// No drain is scheduled: the next batched value schedules one.
        case idle
        /// A drain action is scheduled or running: later values join `batch` without scheduling another.
        case scheduled
    }

    @inlinable
    init(downstream: Downstream) {
        self.downstream = downstream
    }

    @usableFromInline var phase = Phase.awaiting
    // Performance: what the phase holds is stored beside it, not in the payload of its cases. A decision on a phase
    // with payloads copies the whole payload out of the enum and destroys the copy (outlined value-witness calls, even
    // for a bare `case .subscribed = phase` in a mutating method), on every value: receive-on-serial under callgrind
    // went from about 620 instructions per value to 730 with the subscription, downstream and completion in the
    // payload, 680 with the downstream beside it. The phase alone decides; these three are storage, set and cleared
    // with it (`subscription` from `subscribed` to `completionDue`, `completion` in the two completion phases, the
    // downstream until `terminal`). Scheduled actions do not keep the downstream (Apple's do): the contract's cancel
    // drops every reference to the subscriber at once.
    @usableFromInline var subscription: Subscription?
    @usableFromInline var completion: Completion?
    @usableFromInline var downstream: Downstream?
    /// Values handed to the scheduler whose action has not finished offering them to the emitter.
    @usableFromInline var outstandingValues = 0
    /// Values waiting for the batch drain, in order.
    @usableFromInline var batch = RingBuffer<Input>()
    @usableFromInline var drain = Drain.idle
    /// An empty buffer whose storage the next batch reuses.
    @usableFromInline var spare = RingBuffer<Input>()

    /// The upstream's subscription arrived: admitted with nothing to request yet (the downstream asks), or rejected
    /// (a second one), to be cancelled after unlocking.
    @inlinable
    mutating func receiveSubscription(_ subscription: Subscription) -> UpstreamAdmission {
        guard case .awaiting = phase else { return .rejected }
        phase = .subscribed
        self.subscription = subscription
        return .admitted(requesting: .none)
    }

    /// An upstream value arrived: returns whether to schedule it (false: ignore it).
    @inlinable
    mutating func receiveValue() -> Bool {
        guard case .subscribed = phase else { return false }
        outstandingValues += 1
        return true
    }

    /// The upstream completed: returns whether to schedule the completion's action (false: ignore it).
    @inlinable
    mutating func receiveCompletion(_ completion: Completion) -> Bool {
        guard case .subscribed = phase else { return false }
        phase = .completionScheduled
        self.completion = completion
        return true
    }

    /// The completion's scheduled action runs: returns the completion (and the downstream reference to release
    /// outside the lock) to hand to the emitter now, if no value is still in flight.
    @inlinable
    mutating func completionActionRan() -> (Completion, Downstream?)? {
        switch phase {
        case .completionScheduled:
            phase = .completionDue
            return takeCompletionIfReady()
        case .terminal:
            // Cancelled while the action waited on the scheduler.
            return nil
        case .awaiting, .subscribed:
            impossibleEvent("HopStateMachine: completionActionRan with no completion scheduled")
        case .completionDue:
            impossibleEvent("HopStateMachine: completionActionRan twice")
        }
    }

    /// A value's scheduled action has offered its value (or `count` values): returns the completion to hand over
    /// now, if these were the last values in flight and the completion is due.
    @inlinable
    mutating func valueActionFinished(count: Int = 1) -> (Completion, Downstream?)? {
        guard outstandingValues >= count else {
            impossibleEvent("HopStateMachine: valueActionFinished for more values than are in flight")
        }
        outstandingValues -= count
        return takeCompletionIfReady()
    }

    @inlinable
    mutating func takeCompletionIfReady() -> (Completion, Downstream?)? {
        guard outstandingValues == 0, case .completionDue = phase else {
            return nil
        }
        phase = .terminal
        subscription = nil
        return (completion.take().unsafelyUnwrapped, downstream.take())
    }

    /// A value's scheduled action is about to offer it: false once the stream ended (cancelled or completed).
    @inlinable
    func mayDeliverValue() -> Bool {
        switch phase {
        case .subscribed, .completionScheduled, .completionDue: return true
        case .awaiting, .terminal: return false
        }
    }

    /// The subscription a downstream request is forwarded to (only while subscribed).
    @inlinable
    func subscriptionForRequest() -> Subscription? {
        guard case .subscribed = phase else { return nil }
        return subscription
    }

    /// The subscription demand returned by the downstream is requested from (also while the completion is pending).
    @inlinable
    func subscriptionForReturnedDemand() -> Subscription? {
        switch phase {
        case .subscribed, .completionScheduled, .completionDue: return subscription
        case .awaiting, .terminal: return nil
        }
    }

    /// An upstream value arrived at a batching hop: it joins the batch. Returns whether the caller must schedule the
    /// drain (nobody has yet), or nil to ignore the value.
    @inlinable
    mutating func receiveBatchedValue(_ value: Input) -> Bool? {
        guard case .subscribed = phase else { return nil }
        outstandingValues += 1
        batch.append(value)
        guard case .idle = drain else { return false }
        drain = .scheduled
        return true
    }

    /// The drain takes the waiting values (nil: nothing waits, or the stream ended; the drain ends and hands back a
    /// completion that was only waiting for earlier values). The batch leaves with the spare buffer's storage in its
    /// place, so steady batching allocates nothing.
    @inlinable
    mutating func takeBatch() -> (RingBuffer<Input>?, completion: (Completion, Downstream?)?) {
        guard case .scheduled = drain else { impossibleEvent("HopStateMachine: takeBatch with no drain scheduled") }
        guard mayDeliverValue(), !batch.isEmpty else {
            drain = .idle
            return (nil, takeCompletionIfReady())
        }
        let taken = batch
        batch = spare
        spare = RingBuffer()
        return (taken, nil)
    }

    /// The drain offered `delivered` values and gives their (now empty) buffer back. Returns true if more values
    /// arrived meanwhile (the drain stays scheduled: the caller schedules it again), otherwise the drain ends and a
    /// completion that was only waiting for those values is handed back.
    @inlinable
    mutating func batchOffered(_ delivered: Int, emptied: RingBuffer<Input>) -> (
        Bool, completion: (Completion, Downstream?)?
    ) {
        guard case .scheduled = drain else { impossibleEvent("HopStateMachine: batchOffered with no drain scheduled") }
        guard outstandingValues >= delivered else {
            impossibleEvent("HopStateMachine: batchOffered for more values than are in flight")
        }
        outstandingValues -= delivered
        if spare.isEmpty {
            spare = emptied
        }
        guard mayDeliverValue(), !batch.isEmpty else {
            drain = .idle
            return (false, takeCompletionIfReady())
        }
        return (true, nil)
    }

    /// The downstream cancelled: returns the upstream subscription to cancel (nil: none yet, or it already
    /// completed) and what to release outside the lock, or nil when already cancelled or ended.
    ///
    /// Unlike Apple's Combine, a cancel before the upstream's subscription or while the upstream's completion waits
    /// on the scheduler is not ignored: the contract's cancel is prompt (nothing is delivered once it returned), so
    /// a subscription arriving later is cancelled and the waiting values and completion are dropped.
    @inlinable
    mutating func cancel() -> (
        upstream: Subscription?, downstream: Downstream?, batch: RingBuffer<Input>, completion: Completion?
    )? {
        let toCancel: Subscription?
        switch phase {
        case .awaiting, .completionScheduled, .completionDue: toCancel = nil
        case .subscribed: toCancel = subscription
        case .terminal: return nil
        }
        phase = .terminal
        subscription = nil
        return (toCancel, downstream.take(), batch.takeAll(), completion.take())
    }
}
