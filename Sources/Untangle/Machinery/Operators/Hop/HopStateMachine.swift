/// The pure state machine behind ``HopSubscription`` (`receive(on:)`, `delay`): it tracks the upstream subscription
/// through Apple's phases, the signals handed to the scheduler and not yet handed to the downstream's emitter, and
/// the upstream's completion. It never calls out.
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
    @usableFromInline
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        /// The upstream completed; its completion waits on the scheduler.
        case pendingTerminal(Subscription)
        case terminal
    }

    @inlinable
    init(downstream: Downstream) {
        self.downstream = downstream
    }

    @usableFromInline var upstream = Upstream.awaiting
    /// The downstream, dropped at cancel or once the completion is handed over. Scheduled actions do not keep it
    /// (Apple's do): the contract's cancel drops every reference to the subscriber at once.
    @usableFromInline var downstream: Downstream?
    /// Values handed to the scheduler whose action has not finished offering them to the emitter.
    @usableFromInline var outstandingValues = 0
    @usableFromInline var completion: Completion?
    /// The completion's own scheduled action has run: it may be handed over.
    @usableFromInline var completionDue = false
    /// Values waiting for the batch drain (DispatchQueue hops only, see `HopSubscription.drainBatch`), in order.
    @usableFromInline var batch = RingBuffer<Input>()
    /// A drain action is scheduled or running: later values join `batch` without scheduling another.
    @usableFromInline var drainScheduled = false
    /// An empty buffer whose storage the next batch reuses.
    @usableFromInline var spare = RingBuffer<Input>()

    /// The upstream's subscription arrived: admitted with nothing to request yet (the downstream asks), or rejected
    /// (a second one), to be cancelled after unlocking.
    @inlinable
    mutating func receiveSubscription(_ subscription: Subscription) -> UpstreamAdmission {
        guard case .awaiting = upstream else { return .rejected }
        upstream = .subscribed(subscription)
        return .admitted(requesting: .none)
    }

    /// An upstream value arrived: returns the downstream (only checked; scheduled actions do not keep it), or nil to
    /// ignore the value.
    @inlinable
    mutating func receiveValue() -> Downstream? {
        guard case .subscribed = upstream, let downstream else { return nil }
        outstandingValues += 1
        return downstream
    }

    /// The upstream completed: returns the downstream (only checked; scheduled actions do not keep it), or nil to
    /// ignore it.
    @inlinable
    mutating func receiveCompletion(_ completion: Completion) -> Downstream? {
        guard case .subscribed(let subscription) = upstream, let downstream else { return nil }
        upstream = .pendingTerminal(subscription)
        self.completion = completion
        return downstream
    }

    /// The completion's scheduled action runs: returns the completion (and the downstream reference to release
    /// outside the lock) to hand to the emitter now, if no value is still in flight.
    @inlinable
    mutating func completionActionRan() -> (Completion, Downstream?)? {
        completionDue = true
        return takeCompletionIfReady()
    }

    /// A value's scheduled action has offered its value: returns the completion to hand over now, if this was the
    /// last value in flight and the completion is due.
    @inlinable
    mutating func valueActionFinished(count: Int = 1) -> (Completion, Downstream?)? {
        outstandingValues -= count
        return takeCompletionIfReady()
    }

    @inlinable
    mutating func takeCompletionIfReady() -> (Completion, Downstream?)? {
        guard completionDue, outstandingValues == 0, let completion else { return nil }
        self.completion = nil
        upstream = .terminal
        defer { downstream = nil }
        return (completion, downstream)
    }

    /// A value's scheduled action is about to offer it: false once the stream ended (cancelled or completed).
    @inlinable
    func mayDeliverValue() -> Bool {
        switch upstream {
        case .subscribed, .pendingTerminal: return true
        case .awaiting, .terminal: return false
        }
    }

    /// The subscription a downstream request is forwarded to (only while subscribed).
    @inlinable
    func subscriptionForRequest() -> Subscription? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        return subscription
    }

    /// The subscription demand returned by the downstream is requested from (also while the completion is pending).
    @inlinable
    func subscriptionForReturnedDemand() -> Subscription? {
        switch upstream {
        case .subscribed(let subscription), .pendingTerminal(let subscription): return subscription
        case .awaiting, .terminal: return nil
        }
    }

    /// An upstream value arrived at a batching hop: it joins the batch. Returns whether the caller must schedule the
    /// drain (nobody has yet), or nil to ignore the value.
    @inlinable
    mutating func receiveBatchedValue(_ value: Input) -> Bool? {
        guard case .subscribed = upstream else { return nil }
        outstandingValues += 1
        batch.append(value)
        if drainScheduled {
            return false
        }
        drainScheduled = true
        return true
    }

    /// The drain takes the waiting values (nil: nothing waits, or the stream ended; the drain ends and hands back a
    /// completion that was only waiting for earlier values). The batch leaves with the spare buffer's storage in its
    /// place, so steady batching allocates nothing.
    @inlinable
    mutating func takeBatch() -> (RingBuffer<Input>?, completion: (Completion, Downstream?)?) {
        guard mayDeliverValue(), !batch.isEmpty else {
            drainScheduled = false
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
        outstandingValues -= delivered
        if spare.isEmpty {
            spare = emptied
        }
        guard mayDeliverValue(), !batch.isEmpty else {
            drainScheduled = false
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
        switch upstream {
        case .subscribed(let subscription): toCancel = subscription
        case .awaiting, .pendingTerminal: toCancel = nil
        case .terminal: return nil
        }
        upstream = .terminal
        let dropped = completion
        completion = nil
        defer { downstream = nil }
        return (toCancel, downstream, batch.takeAll(), dropped)
    }
}
