/// The pure state machine of a buffer: the bounded queue of values the downstream has not asked for yet, the
/// downstream demand not yet used, and who is moving queued values on. It never calls out (the `customError`
/// closure, too, is called by the caller after unlocking).
///
/// Values leave the buffer in order: a value goes straight to the downstream only when nothing is queued and no
/// thread is moving queued values; otherwise it is queued and the moving thread (the *mover*) takes it. A request
/// made while a mover runs only adds demand, so the mover's loop, not the stack, delivers what it allows.
///
/// **Demand:** `.keepFull` asks the upstream for `size` values at subscription and for one more per value passed
/// downstream; `.byRequest` forwards every downstream request (and demand returned from `receive(_:)`) upstream.
/// **Thread safety:** none: always mutated under the buffer's lock.
struct BufferStateMachine<Value, Failure: Error> {
    private enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case ended
    }

    private var upstream = Upstream.awaiting
    private var buffer = RingBuffer<Value>()
    private var demand = Subscribers.Demand.none
    private var moving = false
    private var upstreamFinished = false
    private(set) var isTerminated = false
    private let size: Int
    private let prefetch: Publishers.PrefetchStrategy
    private let whenFull: Publishers.BufferingStrategy<Failure>

    init(size: Int, prefetch: Publishers.PrefetchStrategy, whenFull: Publishers.BufferingStrategy<Failure>) {
        self.size = size
        self.prefetch = prefetch
        self.whenFull = whenFull
    }

    /// The upstream subscription arrived: returns the demand to request from it at once (nil: cancel it).
    mutating func subscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, case .awaiting = upstream else { return nil }
        upstream = .subscribed(subscription)
        return prefetch == .keepFull ? .max(size) : Subscribers.Demand.none
    }

    enum ValueAction {
        /// Pass the value straight downstream, and return this demand to the upstream.
        case deliver(Subscribers.Demand)
        /// Queued (or dropped by `.dropNewest`/`.dropOldest`: release `dropped` after unlocking).
        case kept(dropped: Value?)
        /// The buffer overflowed with `.customError`: call the closure, cancel the upstream, fail. `discarded` is the
        /// buffer's content, to be released after unlocking.
        case overflow(makeError: () -> Failure, upstream: Subscription?, discarded: RingBuffer<Value>)
        /// The buffer has ended; the value is ignored.
        case ignored
    }

    mutating func receive(_ value: Value) -> ValueAction {
        guard !isTerminated, !upstreamFinished else { return .ignored }
        if !moving, buffer.isEmpty, demand > .none {
            demand -= 1
            return .deliver(prefetch == .keepFull ? .max(1) : .none)
        }
        if buffer.count < size {
            buffer.append(value)
            return .kept(dropped: nil)
        }
        switch whenFull {
        case .dropNewest:
            return .kept(dropped: value)
        case .dropOldest:
            let oldest = buffer.popFirst()
            buffer.append(value)
            return .kept(dropped: oldest)
        case .customError(let makeError):
            let (subscription, discarded) = terminate()
            return .overflow(makeError: makeError, upstream: subscription, discarded: discarded)
        }
    }

    /// The downstream asked for more (`fromRequest`: by `request`, else by returning demand from `receive`).
    /// Returns whether the caller must become the mover, and the upstream subscription to forward the demand to
    /// (`.byRequest` only).
    mutating func request(_ more: Subscribers.Demand) -> (mustMove: Bool, forwardTo: Subscription?) {
        guard !isTerminated else { return (false, nil) }
        demand += more
        var forwardTo: Subscription?
        if prefetch == .byRequest, !upstreamFinished, case .subscribed(let subscription) = upstream {
            forwardTo = subscription
        }
        return (claimMover(), forwardTo)
    }

    /// The upstream finished: returns whether the caller must become the mover (which delivers the queued values,
    /// then the completion).
    mutating func finished() -> Bool {
        guard !isTerminated, !upstreamFinished else { return false }
        upstreamFinished = true
        upstream = .ended
        return claimMover()
    }

    private mutating func claimMover() -> Bool {
        guard !moving, (demand > .none && !buffer.isEmpty) || (upstreamFinished && buffer.isEmpty) else {
            return false
        }
        moving = true
        return true
    }

    enum Batch {
        /// Offer these values downstream, in order; then ask the upstream for `upstreamDemand` more (if any).
        case values([Value], upstreamDemand: Subscribers.Demand, upstream: Subscription?)
        /// The buffer is drained and the upstream finished: finish the downstream.
        case finish
        /// Nothing to do now; the caller is no longer the mover.
        case idle
    }

    /// The mover takes the next batch: every queued value the demand covers.
    mutating func nextBatch() -> Batch {
        guard !isTerminated else {
            moving = false
            return .idle
        }
        if upstreamFinished, buffer.isEmpty {
            moving = false
            isTerminated = true
            return .finish
        }
        guard demand > .none, !buffer.isEmpty else {
            moving = false
            return .idle
        }
        let count = min(demand.max ?? buffer.count, buffer.count)
        var values: [Value] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            values.append(buffer.popFirst()!)
        }
        demand -= count
        if prefetch == .keepFull, case .subscribed(let subscription) = upstream {
            return .values(values, upstreamDemand: .max(count), upstream: subscription)
        }
        return .values(values, upstreamDemand: .none, upstream: nil)
    }

    /// The upstream failed or the downstream cancelled: returns the upstream subscription (to cancel, unless it
    /// failed) and the buffer's content (to release after unlocking).
    mutating func terminate() -> (Subscription?, discarded: RingBuffer<Value>) {
        guard !isTerminated else { return (nil, RingBuffer()) }
        isTerminated = true
        var subscription: Subscription?
        if case .subscribed(let current) = upstream {
            subscription = current
        }
        upstream = .ended
        return (subscription, buffer.takeAll())
    }
}
