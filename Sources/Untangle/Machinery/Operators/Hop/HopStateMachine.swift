/// The pure state machine behind ``HopSubscription`` (`receive(on:)`, `delay`, `timeout`): it tracks the upstream
/// subscription, the signals handed to the scheduler and not yet handed to the downstream's emitter, the upstream's
/// completion, and the generation a timeout timer must match to fire. It never calls out.
///
/// The completion is handed to the emitter only once its own scheduled action has run AND every value scheduled
/// before it has been offered: on a concurrent queue the completion's action may run before a value's action, and
/// handing the completion over first would drop that value.
///
/// **Demand:** not tracked here: requests pass straight upstream and the emitter counts the downstream's demand.
/// **Thread safety:** none: a value type always mutated under its subscription's lock.
@usableFromInline
struct HopStateMachine<Input, Completion> {
    @usableFromInline
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case ended
    }

    @inlinable
    init() {}

    @usableFromInline var upstream = Upstream.awaiting
    /// No more upstream signal is accepted: the upstream completed, the timeout fired, or the downstream cancelled.
    @usableFromInline var inputClosed = false
    @usableFromInline var cancelled = false
    /// Values handed to the scheduler whose action has not finished offering them to the emitter.
    @usableFromInline var outstandingValues = 0
    @usableFromInline var completion: Completion?
    /// The completion's own scheduled action has run (or the timeout fired): it may be handed over.
    @usableFromInline var completionDue = false
    /// Bumped by every upstream value and by the end of input; a timeout timer fires only if its generation is
    /// still the current one.
    @usableFromInline var generation = 0
    /// Values waiting for the batch drain (immediate hops only, see `HopSubscription.drainBatches`), in order.
    @usableFromInline var batch = RingBuffer<Input>()
    /// A drain action is scheduled or running: later values join `batch` without scheduling another.
    @usableFromInline var drainScheduled = false
    /// An empty buffer whose storage the next batch reuses.
    @usableFromInline var spare = RingBuffer<Input>()

    /// The upstream's subscription arrived: false means it must be cancelled (a second one, or after cancel).
    @inlinable
    mutating func receiveSubscription(_ subscription: Subscription) -> Bool {
        guard case .awaiting = upstream, !cancelled else { return false }
        upstream = .subscribed(subscription)
        return true
    }

    /// An upstream value arrived: returns the new generation (to arm a timeout with), or nil to ignore the value.
    @inlinable
    mutating func receiveValue() -> Int? {
        guard !inputClosed else { return nil }
        outstandingValues += 1
        generation += 1
        return generation
    }

    /// The upstream completed: returns the upstream state to release outside the lock, or nil to ignore the
    /// completion (input already closed).
    @inlinable
    mutating func receiveCompletion(_ completion: Completion) -> Upstream? {
        guard !inputClosed else { return nil }
        inputClosed = true
        generation += 1
        self.completion = completion
        defer { upstream = .ended }
        return upstream
    }

    /// The completion's scheduled action runs: returns the completion to hand to the emitter now, if no value
    /// is still in flight.
    @inlinable
    mutating func completionActionRan() -> Completion? {
        completionDue = true
        return takeCompletionIfReady()
    }

    /// A value's scheduled action has offered its value: returns the completion to hand over now, if this was the
    /// last value in flight and the completion is due.
    @inlinable
    mutating func valueActionFinished() -> Completion? {
        outstandingValues -= 1
        return takeCompletionIfReady()
    }

    /// A timeout timer fired: returns the upstream state to cancel outside the lock if it times the stream out,
    /// nil if it is stale (a value or the end came after it was armed) or the input is already closed.
    @inlinable
    mutating func timerFired(generation armed: Int) -> Upstream? {
        guard armed == generation, !inputClosed else { return nil }
        inputClosed = true
        generation += 1
        defer { upstream = .ended }
        return upstream
    }

    /// The completion a fired timeout produced (computed outside the lock, since `customError` is user code) is
    /// due at once: returns it if it may be handed over now.
    @inlinable
    mutating func timedOut(with completion: Completion) -> Completion? {
        guard !cancelled else { return nil }
        self.completion = completion
        completionDue = true
        return takeCompletionIfReady()
    }

    @inlinable
    mutating func takeCompletionIfReady() -> Completion? {
        guard completionDue, outstandingValues == 0, !cancelled, let completion else { return nil }
        self.completion = nil
        return completion
    }

    /// The subscription to forward a request to, if the upstream is still live.
    @inlinable
    func subscriptionForRequest() -> Subscription? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        return subscription
    }

    /// An upstream value arrived at an immediate hop: it joins the batch. Returns the new generation and whether the
    /// caller must schedule the drain (nobody has yet), or nil to ignore the value.
    @inlinable
    mutating func receiveBatchedValue(_ value: Input) -> (generation: Int, scheduleDrain: Bool)? {
        guard !inputClosed else { return nil }
        outstandingValues += 1
        generation += 1
        batch.append(value)
        if drainScheduled {
            return (generation, false)
        }
        drainScheduled = true
        return (generation, true)
    }

    /// The drain takes the waiting values (nil: nothing waits, or cancelled; the drain ends and hands back a
    /// completion that was only waiting for earlier values). The batch leaves with the spare buffer's storage in its
    /// place, so steady batching allocates nothing.
    @inlinable
    mutating func takeBatch() -> (RingBuffer<Input>?, completion: Completion?) {
        guard !cancelled, !batch.isEmpty else {
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
    mutating func batchOffered(_ delivered: Int, emptied: RingBuffer<Input>) -> (Bool, completion: Completion?) {
        outstandingValues -= delivered
        if spare.isEmpty {
            spare = emptied
        }
        guard !cancelled, !batch.isEmpty else {
            drainScheduled = false
            return (false, takeCompletionIfReady())
        }
        return (true, nil)
    }

    /// The downstream cancelled: returns the upstream state to cancel and the pending completion to release
    /// outside the lock, or nil if it had already cancelled.
    @inlinable
    mutating func cancel() -> (upstream: Upstream, completion: Completion?, batch: RingBuffer<Input>)? {
        guard !cancelled else { return nil }
        cancelled = true
        inputClosed = true
        generation += 1
        defer {
            upstream = .ended
            completion = nil
        }
        return (upstream, completion, batch.takeAll())
    }
}
