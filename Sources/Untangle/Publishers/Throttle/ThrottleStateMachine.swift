/// The pure state machine of `throttle`: the downstream's demand, the one value (and possibly the completion)
/// waiting for the next emission, and when the last value was emitted. It never calls out.
///
/// At most one emission is scheduled at a time, at `max(now, lastEmission + interval)`. While it waits, a new value
/// replaces the waiting one (`latest == true`) or is discarded (`latest == false`, the first one wins). A completion
/// arriving while an emission waits is delivered right after that emission; otherwise at once (on the scheduler).
///
/// **Demand:** the upstream is asked for `.unlimited`; a value that arrives while the downstream has no demand is
/// discarded; scheduling an emission reserves one unit of demand.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct ThrottleStateMachine<Output, Completion, Time: Strideable> {
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case ended
    }

    /// What to do with an upstream value.
    enum ValueDecision {
        /// Nothing to schedule; `released` (a discarded or replaced value) is released outside the lock.
        case none(released: Output?)
        /// Schedule the emission now (`at == nil`) or at `at`.
        case schedule(at: Time?)
    }

    private(set) var upstream = Upstream.awaiting
    private(set) var demand = Subscribers.Demand.none
    private var pending: Output?
    private var pendingCompletion: Completion?
    private var emissionScheduled = false
    private var lastEmission: Time?
    private(set) var inputClosed = false
    private(set) var cancelled = false

    mutating func receiveSubscription(_ subscription: Subscription) -> Bool {
        guard case .awaiting = upstream, !cancelled else { return false }
        upstream = .subscribed(subscription)
        return true
    }

    mutating func addDemand(_ more: Subscribers.Demand) {
        guard !cancelled else { return }
        demand += more
    }

    mutating func receiveValue(_ value: Output, now: Time, interval: Time.Stride, latest: Bool) -> ValueDecision {
        guard !inputClosed, demand > .none else { return .none(released: value) }
        if emissionScheduled {
            guard latest else { return .none(released: value) }
            defer { pending = value }
            return .none(released: pending)
        }
        let earliest = lastEmission.map { Swift.max(now, $0.advanced(by: interval)) } ?? now
        demand -= 1
        pending = value
        emissionScheduled = true
        return .schedule(at: earliest == now ? nil : earliest)
    }

    /// The scheduled emission runs: returns the value and/or completion to deliver, in that order.
    mutating func emissionFired(now: Time) -> (value: Output?, completion: Completion?) {
        guard emissionScheduled, !cancelled else { return (nil, nil) }
        emissionScheduled = false
        let value = pending
        pending = nil
        if value != nil { lastEmission = now }
        defer { pendingCompletion = nil }
        return (value, pendingCompletion)
    }

    /// The upstream completed: returns the upstream state to release, and the completion to schedule at once (nil
    /// when it waits for the scheduled emission); nil if the input was already closed.
    mutating func receiveCompletion(_ completion: Completion) -> (upstream: Upstream, scheduleNow: Completion?)? {
        guard !inputClosed else { return nil }
        inputClosed = true
        defer { upstream = .ended }
        if emissionScheduled {
            pendingCompletion = completion
            return (upstream, nil)
        }
        return (upstream, completion)
    }

    /// The downstream cancelled: returns what to cancel and release outside the lock, nil if already cancelled.
    mutating func cancel() -> (upstream: Upstream, pending: Output?, completion: Completion?)? {
        guard !cancelled else { return nil }
        cancelled = true
        inputClosed = true
        defer {
            upstream = .ended
            pending = nil
            pendingCompletion = nil
        }
        return (upstream, pending, pendingCompletion)
    }
}
