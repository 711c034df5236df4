/// The pure state machine of a buffer: the upstream's phase, the bounded queue of values the downstream has not
/// received yet, the downstream demand not yet used, the completion waiting behind the queue, and who is moving
/// queued values on. It never calls out (the `customError` closure, too, is called by the caller after unlocking).
///
/// Every value is queued first; one thread at a time (the *mover*) hands queued values to the downstream, one per
/// critical section, while demand lasts. A request or a value arriving while a mover runs only adds to the state;
/// the mover's loop, not the stack, delivers what it allows. The mover is also held while the downstream receives
/// its subscription, so nothing reaches the downstream before it.
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

    @usableFromInline var upstream = UpstreamSlot.awaiting
    @usableFromInline var downstream: Downstream?
    @usableFromInline var buffer = RingBuffer<Value>()
    @usableFromInline var demand = Subscribers.Demand.none
    @usableFromInline var terminal: Terminal?
    @usableFromInline var moving = false
    /// A mover stopped because the overflow's error was not made yet: whoever stores it moves on.
    @usableFromInline var completionBlocked = false
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

    /// The upstream subscription arrived: admitted with the demand to request from it at once, and the downstream to
    /// hand the subscription to (the caller is the mover until it has); or rejected, with no downstream.
    @inlinable
    mutating func subscribed(_ subscription: Subscription) -> (UpstreamAdmission, Downstream?) {
        guard let downstream else { return (.rejected, nil) }
        let admission = upstream.admit(subscription, requesting: prefetch == .keepFull ? .max(size) : .unlimited)
        guard admission.isAdmitted else { return (admission, nil) }
        moving = true
        return (admission, downstream)
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
    mutating func receive(_ value: Value) -> ValueAction {
        guard case .subscribed(let subscription) = upstream else { return .ignored }
        switch terminal {
        case .failure?, .overflowing?: return .ignored
        case .finished?, nil: break
        }
        var dropped: Value?
        if buffer.count >= size {
            switch whenFull {
            case .dropNewest:
                return .queued(dropped: value, move: claimMover())
            case .dropOldest:
                dropped = buffer.popFirst()
            case .customError(let makeError):
                terminal = .overflowing
                return .overflow(makeError: makeError, upstream: subscription)
            }
        }
        buffer.append(value)
        return .queued(dropped: dropped, move: claimMover())
    }

    /// The overflow's error is made: returns whether the caller must become the mover (a delivery attempt found the
    /// error missing meanwhile).
    @inlinable
    mutating func overflowed(with error: Failure) -> Bool {
        guard case .overflowing? = terminal else { return false }
        terminal = .failure(error)
        guard completionBlocked else { return false }
        completionBlocked = false
        return claimMover()
    }

    /// The downstream asked for more: returns the upstream subscription (to request the refill from) and whether the
    /// caller became the mover; nil when not subscribed.
    @inlinable
    mutating func request(_ more: Subscribers.Demand) -> (Subscription, move: Bool)? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        demand += more
        return (subscription, claimMover())
    }

    /// The upstream completed: returns whether the caller must become the mover.
    @inlinable
    mutating func receiveCompletion(_ completion: Subscribers.Completion<Failure>) -> Bool {
        guard case .subscribed = upstream, terminal == nil else { return false }
        switch completion {
        case .finished: terminal = .finished
        case .failure(let error): terminal = .failure(error)
        }
        return claimMover()
    }

    @inlinable
    mutating func claimMover() -> Bool {
        guard !moving else { return false }
        moving = true
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
        guard case .subscribed = upstream, let downstream else {
            moving = false
            return .stop
        }
        demand += returned
        if demand == .none || buffer.isEmpty {
            switch terminal {
            // `.finished` waits behind the queue and for demand, as Apple's: with the last queued value leaving the
            // downstream's demand at zero, the next request delivers it (that request's mover finds the queue empty
            // and demand above zero).
            case .finished? where buffer.isEmpty && demand > .none, .failure?:
                return complete(downstream)
            case .overflowing?:
                completionBlocked = true
            case .finished?, nil:
                break
            }
            moving = false
            return .stop
        }
        demand -= 1
        return .value(downstream, buffer.popFirst()!, refill: prefetch == .keepFull ? .max(1) : .none)
    }

    @inlinable
    mutating func complete(_ downstream: Downstream) -> Step {
        let completion: Subscribers.Completion<Failure>
        if case .failure(let error)? = terminal {
            completion = .failure(error)
        } else {
            completion = .finished
        }
        upstream = .ended
        moving = false
        self.downstream = nil
        return .complete(downstream, completion, discarded: buffer.takeAll())
    }

    /// The downstream cancelled: returns the upstream subscription to cancel and what to release after unlocking,
    /// or nil if there is nothing to cancel (not subscribed yet, or already over).
    @inlinable
    mutating func cancel() -> (Subscription, discarded: RingBuffer<Value>, downstream: Downstream?)? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        upstream = .ended
        defer { downstream = nil }
        return (subscription, buffer.takeAll(), downstream)
    }
}
