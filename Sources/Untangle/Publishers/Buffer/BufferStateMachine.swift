import UntangleSync

/// The pure state machine of a buffer: its phase (waiting for the upstream's subscription, running, or ended) with
/// the upstream's subscription, the downstream and the completion waiting behind the queue it holds, the mover's
/// phase, the bounded queue of values the downstream has not received yet, and the downstream demand not yet used. It
/// never calls out (the `customError` closure, too, is called by the caller after unlocking).
///
/// Every value is queued first; one thread at a time (the *mover*) hands queued values to the downstream, one per
/// critical section, while demand lasts. A request or a value arriving while a mover runs only adds to the state;
/// the mover's loop, not the stack, delivers what it allows. The mover is also held while the upstream is asked for
/// its first demand and while the downstream receives its subscription, so nothing reaches the downstream before it;
/// during that callout a request (or a value, or a completion) from the callout's own thread moves nested, so a value
/// already queued is delivered inside a request made in `receive(subscription:)`, as Apple's does.
///
/// As in Apple's Combine: `.finished` is delivered once the queue is empty and the downstream has demand left (with
/// none, it waits for the next request: the contract allows a completion without demand but does not require one);
/// a failure as soon as the downstream has no demand left for queued values (at once, if it has none); values
/// arriving after a `.finished` that has not gone downstream yet are still queued, ahead of it; an overflow with
/// `.customError` stops accepting values and fails at the next delivery attempt.
///
/// **Demand:** `.keepFull` asks the upstream for `size` values at subscription and for one more per value passed
/// downstream; `.byRequest` asks for `.unlimited` at subscription.
/// **Thread safety:** none: always mutated under the buffer's lock.
@usableFromInline
struct BufferStateMachine<Value, Failure: Error, Downstream> {
    @usableFromInline
    enum Terminal {
        case finished
        case failure(Failure)
        /// The buffer overflowed with `.customError`; the error is being made (outside the lock).
        case overflowing
    }

    /// The buffer's phase. Legal moves: `awaitingSubscription` to `running` (the upstream's subscription),
    /// `running` to `ended` (the completion delivered, or a cancel).
    @usableFromInline
    enum Phase: UInt8 {
        /// The upstream's subscription has not arrived: `downstream` is set, `subscription` is nil.
        case awaitingSubscription
        /// Values are queued and moved on: `subscription` and `downstream` are set; `terminal` is the upstream's
        /// completion waiting behind the queue, once it came.
        case running
        /// The completion went downstream, or the downstream cancelled: everything is ignored, nothing is held but
        /// `terminal`, which the mirror still shows (as Apple's).
        case ended
    }

    /// Who moves queued values on. Legal moves: `idle` to `moving` (a signal made something deliverable, or the
    /// upstream's subscription arrived), `moving` to `idle` (nothing deliverable) or to `awaitingError` (the
    /// overflow's error is not made yet), `awaitingError` to `moving` (the error is stored) or to `idle` (cancelled).
    /// While `calloutThread` is set (the downstream is inside `receive(subscription:)`), only that thread claims the
    /// idle mover, and a mover finding the overflow's error missing stops (`idle`) instead of waiting for it.
    @usableFromInline
    enum Mover {
        /// Nobody: the next signal that makes something deliverable claims the role.
        case idle
        /// One thread hands queued values (or, first, the subscription) to the downstream.
        case moving
        /// The mover stopped because the overflow's error was not made yet: whoever stores it moves on.
        case awaitingError
    }

    @usableFromInline var phase = Phase.awaitingSubscription
    // Performance: what the phase holds is stored beside it, not in the payload of its cases. A decision on a phase
    // with payloads copies the whole payload out of the enum and destroys the copy (outlined value-witness calls, even
    // for a bare `case .running = phase` in a mutating method), on every value: a subject's values through
    // `buffer(size: 16, prefetch: .byRequest, whenFull: .dropNewest)` into a sink cost about 1,780 instructions per
    // value before this machine had phases, 2,600 with the subscription, downstream and terminal in the payload (a
    // callgrind count of a single-threaded loop, the same as `Benchmarks/run.sh --instructions` makes). The phase alone
    // decides; these three are storage, set and cleared with it.
    @usableFromInline var subscription: Subscription?
    @usableFromInline var downstream: Downstream?
    /// The upstream's completion: waiting behind the queue while running, kept after the end for the mirror.
    @usableFromInline var terminal: Terminal?
    @usableFromInline var mover = Mover.idle
    /// The thread inside the downstream's `receive(subscription:)`, while it is there: a signal from that thread
    /// (made inside the callout) claims the idle mover and moves nested; one from another thread only adds to the
    /// state, and the callout's thread moves it on when the callout returns.
    //
    // Performance: beside the mover rather than in new mover cases, so that the value path (claim, steps, stop) is
    // what it was: a callgrind count of a subject's values through `buffer(size: 16, prefetch: .byRequest, whenFull:
    // .dropNewest)` into a sink (a release build, the difference between 100,000 and 200,000 values) gives 782
    // instructions per value, 783 before the nested moves; with two mover cases carrying the thread it was 815, and
    // 804 with the thread stored here but the nested move still a mover case (`nextStep` and its stop decided more).
    // Only an idle claim reads it.
    @usableFromInline var calloutThread: ThreadID?
    @usableFromInline var buffer = RingBuffer<Value>()
    @usableFromInline var demand = Subscribers.Demand.none
    @usableFromInline let size: Int
    @usableFromInline let prefetch: Publishers.PrefetchStrategy
    @usableFromInline let whenFull: Publishers.BufferingStrategy<Failure>

    @inlinable
    init(
        downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
        whenFull: Publishers.BufferingStrategy<Failure>
    ) {
        self.downstream = downstream
        self.size = size
        self.prefetch = prefetch
        self.whenFull = whenFull
    }

    /// The upstream's phase, as the mirror shows it.
    @inlinable
    var upstream: UpstreamSlot {
        switch phase {
        case .awaitingSubscription: return .awaiting
        case .running: return .subscribed(subscription.unsafelyUnwrapped)
        case .ended: return .ended
        }
    }

    /// The upstream subscription arrived: admitted with the demand to request from it at once, and the downstream to
    /// hand the subscription to (the caller is the mover until it has); or rejected, with no downstream.
    @inlinable
    mutating func subscribed(_ subscription: Subscription) -> (UpstreamAdmission, Downstream?) {
        guard case .awaitingSubscription = phase else { return (.rejected, nil) }
        guard case .idle = mover else {
            impossibleEvent("BufferStateMachine: subscribed while a mover runs before the subscription")
        }
        phase = .running
        self.subscription = subscription
        mover = .moving
        return (.admitted(requesting: prefetch == .keepFull ? .max(size) : .unlimited), downstream)
    }

    /// The mover (the thread that admitted the subscription) is about to hand the downstream its subscription, on
    /// `thread`: from here only a signal from that thread claims the mover, and moves nested.
    @inlinable
    mutating func startSubscriptionCallout(on thread: ThreadID) {
        guard case .moving = mover, calloutThread == nil else {
            impossibleEvent("BufferStateMachine: startSubscriptionCallout by a thread that is not the mover")
        }
        mover = .idle
        calloutThread = thread
    }

    /// The downstream's `receive(subscription:)` returned: its thread moves on as the mover (what other threads
    /// added meanwhile, and what no nested move delivered). Nested moves ran on this thread, inside the callout, so
    /// none is running.
    @inlinable
    mutating func subscriptionCalloutReturned() {
        guard case .idle = mover, calloutThread != nil else {
            impossibleEvent("BufferStateMachine: subscriptionCalloutReturned outside the subscription callout")
        }
        calloutThread = nil
        mover = .moving
    }

    @usableFromInline
    enum ValueAction {
        /// Queued (`dropped`, if any, is released after unlocking); `move` tells whether the caller became the mover.
        case queued(dropped: Value?, move: Bool)
        /// The buffer overflowed with `.customError`: call the closure, then ``overflowed(with:)``, then cancel the
        /// upstream.
        case overflow(makeError: () -> Failure, upstream: Subscription)
        /// Not accepted (not subscribed, or failed): release the value after unlocking.
        case ignored
    }

    @inlinable
    mutating func receive(_ value: Value, on thread: @autoclosure () -> ThreadID) -> ValueAction {
        guard case .running = phase else { return .ignored }
        switch terminal {
        case .failure?, .overflowing?: return .ignored
        case .finished?, nil: break
        }
        var dropped: Value?
        if buffer.count >= size {
            switch whenFull {
            case .dropNewest:
                return .queued(dropped: value, move: claimMover(on: thread()))
            case .dropOldest:
                dropped = buffer.popFirst()
            case .customError(let makeError):
                terminal = .overflowing
                return .overflow(makeError: makeError, upstream: subscription.unsafelyUnwrapped)
            }
        }
        buffer.append(value)
        return .queued(dropped: dropped, move: claimMover(on: thread()))
    }

    /// The overflow's error is made: returns whether the caller must become the mover (a delivery attempt found the
    /// error missing meanwhile).
    @inlinable
    mutating func overflowed(with error: Failure) -> Bool {
        guard case .running = phase else { return false }
        guard case .overflowing? = terminal else {
            impossibleEvent("BufferStateMachine: overflowed(with:) with no overflow pending")
        }
        terminal = .failure(error)
        guard case .awaitingError = mover else { return false }
        mover = .moving
        return true
    }

    /// The downstream asked for more: returns the upstream subscription (to request the refill from) and whether the
    /// caller became the mover; nil when not subscribed.
    @inlinable
    mutating func request(_ more: Subscribers.Demand, on thread: @autoclosure () -> ThreadID) -> (
        Subscription, move: Bool
    )? {
        guard case .running = phase else { return nil }
        demand += more
        return (subscription.unsafelyUnwrapped, claimMover(on: thread()))
    }

    /// The upstream completed: returns whether the caller must become the mover.
    @inlinable
    mutating func receiveCompletion(
        _ completion: Subscribers.Completion<Failure>, on thread: @autoclosure () -> ThreadID
    ) -> Bool {
        guard case .running = phase, terminal == nil else { return false }
        switch completion {
        case .finished: terminal = .finished
        case .failure(let error): terminal = .failure(error)
        }
        return claimMover(on: thread())
    }

    /// Whether the caller became the mover: nobody was (one waiting for the overflow's error counts as somebody), and
    /// the downstream is not inside its subscription callout on another thread. The thread is only asked for during
    /// the callout (an autoclosure), so the claims of the value path cost nothing more.
    //
    // Nested moves during the callout: Apple's buffer delivers what it holds inside a request the downstream makes in
    // `receive(subscription:)` (and a value a synchronous upstream sends from there, nested in the send). Holding the
    // mover across the callout (so that nothing from another thread reaches the downstream before its subscription,
    // or while the callout runs) delivered it only after the callout returned, after anything the downstream did
    // there (`throttle`, which asks before its own subscriber has, then kept a value Combine drops; the differential
    // check's time mode). Only the callout's own thread is nested inside it: its signals are ordered after the
    // subscription and before the callout's return by that thread's program order, so the downstream's signals stay
    // serialized; another thread's signal waits for the callout to return, as before.
    @inlinable
    mutating func claimMover(on thread: @autoclosure () -> ThreadID) -> Bool {
        guard case .idle = mover else { return false }
        if let callout = calloutThread, callout != thread() { return false }
        mover = .moving
        return true
    }

    @usableFromInline
    enum Step {
        /// Deliver this value; `refill` is the demand to ask the upstream for in exchange.
        case value(Downstream, Value, refill: Subscribers.Demand)
        /// Deliver the completion (`discarded`: queued values to release after unlocking); the stream is over.
        case complete(Downstream, Subscribers.Completion<Failure>, discarded: RingBuffer<Value>)
        /// Nothing to deliver now; the caller is no longer the mover.
        case stop
    }

    /// The mover takes its next step, adding the demand the previous delivery returned.
    @inlinable
    mutating func nextStep(returned: Subscribers.Demand) -> Step {
        guard case .moving = mover else {
            impossibleEvent("BufferStateMachine: nextStep by a thread that is not the mover")
        }
        guard case .running = phase else {
            mover = .idle
            return .stop
        }
        let downstream = self.downstream.unsafelyUnwrapped
        demand += returned
        if demand == .none || buffer.isEmpty {
            switch terminal {
            // `.finished` waits behind the queue and for demand, as Apple's: with the last queued value leaving the
            // downstream's demand at zero, the next request delivers it (that request's mover finds the queue empty
            // and demand above zero).
            case .finished? where buffer.isEmpty && demand > .none:
                return complete(downstream, .finished)
            case .failure(let error)?:
                return complete(downstream, .failure(error))
            // A nested move (inside the subscription callout) does not wait for the error: whoever stored it would
            // move on while the callout still runs. The callout's return moves on, and waits for it if need be.
            case .overflowing? where calloutThread != nil:
                mover = .idle
                return .stop
            case .overflowing?:
                mover = .awaitingError
                return .stop
            case .finished?, nil:
                mover = .idle
                return .stop
            }
        }
        demand -= 1
        return .value(downstream, buffer.popFirst()!, refill: prefetch == .keepFull ? .max(1) : .none)
    }

    @inlinable
    mutating func complete(_ downstream: Downstream, _ completion: Subscribers.Completion<Failure>) -> Step {
        phase = .ended
        subscription = nil
        self.downstream = nil
        mover = .idle
        return .complete(downstream, completion, discarded: buffer.takeAll())
    }

    /// The downstream cancelled: returns the upstream subscription to cancel and what to release after unlocking,
    /// or nil if there is nothing to cancel (not subscribed yet, or already over). A running mover stops at its next
    /// step; one waiting for the overflow's error is no longer waited for.
    @inlinable
    mutating func cancel() -> (Subscription, discarded: RingBuffer<Value>, downstream: Downstream?)? {
        guard case .running = phase else { return nil }
        phase = .ended
        if case .awaitingError = mover {
            mover = .idle
        }
        return (subscription.take().unsafelyUnwrapped, buffer.takeAll(), downstream.take())
    }
}
