/// The pure state machine of `throttle`: the upstream's phase, the downstream's demand, the value and completion
/// waiting for the next emission, and when the last value was emitted. It never calls out (the scheduler's clock is
/// read by the caller, outside the lock).
///
/// As in Apple's Combine: an emission is scheduled for a value only when nothing is waiting, at
/// `max(now, lastEmission + interval)` (at once when that is now). While it waits, a newer value replaces the
/// waiting one (`latest == true`) or is discarded (`latest == false`). A completion arriving while a value waits is
/// delivered right after that value; otherwise it is scheduled at once. A value arriving without demand is dropped.
///
/// **Demand:** the upstream is asked for `.unlimited`; scheduling an emission uses one unit of the downstream's
/// demand; the demand it returns is added.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct ThrottleStateMachine<Output, Completion, Time: Strideable>: ScheduledStateMachine {
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        /// The upstream completed; its completion waits for the next emission.
        case pendingTerminal(Subscription)
        case terminal
    }

    /// What to do with an upstream value.
    enum ValueDecision {
        /// Nothing to schedule; `released` (a dropped or replaced value) is released outside the lock.
        case none(released: Output?)
        /// Schedule the emission now (`at == nil`) or at `at`.
        case schedule(at: Time?)
    }

    private(set) var upstream = Upstream.awaiting
    private(set) var demand = Subscribers.Demand.none
    private var pendingInput: Output?
    private var pendingCompletion: Completion?
    private var lastEmission: Time?
    /// An emission took its value and is reading the clock to record when it happened.
    private var emissionClockPending = false
    /// When the last upstream event arrived (Apple's operator reads the clock for each).
    private(set) var lastEventTime: Time?

    var isSubscribed: Bool {
        if case .subscribed = upstream { return true }
        return false
    }

    mutating func receiveSubscription(_ subscription: Subscription, now: Time) -> Bool {
        guard case .awaiting = upstream else { return false }
        upstream = .subscribed(subscription)
        lastEventTime = now
        return true
    }

    mutating func addDemand(_ more: Subscribers.Demand) {
        guard case .subscribed = upstream else { return }
        demand += more
    }

    /// The downstream returned demand from `receive(_:)`: counted, also once the stream has ended (as Apple's).
    mutating func downstreamReturned(_ more: Subscribers.Demand) -> Subscription? {
        demand += more
        return nil
    }

    mutating func receiveValue(_ value: Output, now: Time, interval: Time.Stride, latest: Bool) -> ValueDecision {
        guard case .subscribed = upstream else { return .none(released: value) }
        lastEventTime = now
        guard demand > .none else { return .none(released: value) }
        let hasScheduledOutput = pendingInput != nil || pendingCompletion != nil
        if hasScheduledOutput {
            guard latest else { return .none(released: value) }
            defer { pendingInput = value }
            return .none(released: pendingInput)
        }
        // While an emission is still reading the clock, this value's own `now` stands in for its time.
        let minimum = emissionClockPending ? now.advanced(by: interval) : lastEmission.map { $0.advanced(by: interval) }
        let emission = minimum.map { Swift.max(now, $0) } ?? now
        demand -= 1
        pendingInput = value
        return .schedule(at: emission == now ? nil : emission)
    }

    /// The upstream completed: returns whether to schedule an emission for it at once (false: it waits for the
    /// scheduled value, or is ignored).
    mutating func receiveCompletion(_ completion: Completion, now: Time) -> Bool {
        guard case .subscribed(let subscription) = upstream else { return false }
        lastEventTime = now
        upstream = .pendingTerminal(subscription)
        let hasScheduledOutput = pendingInput != nil || pendingCompletion != nil
        guard pendingCompletion == nil else { return false }
        pendingCompletion = completion
        return !hasScheduledOutput
    }

    /// The scheduled emission runs: returns the value and/or completion to deliver, in that order, and whether the
    /// caller must read the clock and report it (``emitted(at:)``): a value is emitted without a completion.
    mutating func emissionFired() -> (value: Output?, completion: Completion?, readClock: Bool) {
        switch upstream {
        case .awaiting, .terminal: return (nil, nil, false)
        case .subscribed, .pendingTerminal: break
        }
        let readClock = pendingInput != nil && pendingCompletion == nil
        if readClock {
            emissionClockPending = true
        }
        defer {
            pendingInput = nil
            pendingCompletion = nil
        }
        if pendingCompletion != nil {
            upstream = .terminal
        }
        return (pendingInput, pendingCompletion, readClock)
    }

    /// The emission read the clock: the last emission happened at `now`.
    mutating func emitted(at now: Time) {
        emissionClockPending = false
        lastEmission = now
    }

    /// The downstream cancelled: returns the upstream to cancel (also while the completion waits, as Apple's) and
    /// what to release outside the lock; nil if there is nothing to cancel. A cancel before the upstream's
    /// subscription arrived ends the stream too: that subscription will be cancelled on arrival (as Apple's).
    mutating func cancel() -> (upstream: Subscription, pending: Output?)? {
        let subscription: Subscription
        switch upstream {
        case .subscribed(let current), .pendingTerminal(let current): subscription = current
        case .awaiting:
            upstream = .terminal
            return nil
        case .terminal: return nil
        }
        upstream = .terminal
        defer {
            pendingInput = nil
            pendingCompletion = nil
        }
        return (subscription, pendingInput)
    }
}
