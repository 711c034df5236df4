/// The pure state machine of `throttle`: the upstream's phase, the downstream's demand, what waits for the next
/// emission (a value, a completion, or both), and when the last value was emitted (or that an emission is reading
/// the clock to record it). It never calls out (the scheduler's clock is
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

    /// What waits for the scheduled emission.
    enum Waiting {
        /// Nothing: no emission is scheduled.
        case nothing
        /// A value (a newer one replaces it, or is discarded, as `latest` says).
        case value(Output)
        /// The upstream's completion (scheduled at once when nothing else waited).
        case completion(Completion)
        /// A value, then the completion that arrived while it waited: delivered right after it.
        case valueThenCompletion(Output, Completion)
    }

    /// When the last value was emitted: the next emission is scheduled `interval` after it.
    enum LastEmission {
        /// No value was emitted yet: the next one goes at once.
        case never
        /// The last value was emitted at this time.
        case at(Time)
        /// An emission took its value and is reading the clock to record when it happened: a value arriving
        /// meanwhile counts from its own arrival.
        case readingClock
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
    private var waiting = Waiting.nothing
    private var lastEmission = LastEmission.never
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
        switch waiting {
        case .nothing:
            break
        case .value(let replaced):
            guard latest else { return .none(released: value) }
            waiting = .value(value)
            return .none(released: replaced)
        case .completion(let completion):
            guard latest else { return .none(released: value) }
            waiting = .valueThenCompletion(value, completion)
            return .none(released: nil)
        case .valueThenCompletion(let replaced, let completion):
            guard latest else { return .none(released: value) }
            waiting = .valueThenCompletion(value, completion)
            return .none(released: replaced)
        }
        let minimum: Time?
        switch lastEmission {
        case .never: minimum = nil
        case .at(let time): minimum = time.advanced(by: interval)
        // While an emission is still reading the clock, this value's own `now` stands in for its time.
        case .readingClock: minimum = now.advanced(by: interval)
        }
        let emission = minimum.map { Swift.max(now, $0) } ?? now
        demand -= 1
        waiting = .value(value)
        return .schedule(at: emission == now ? nil : emission)
    }

    /// The upstream completed: returns whether to schedule an emission for it at once (false: it waits for the
    /// scheduled value, or is ignored).
    mutating func receiveCompletion(_ completion: Completion, now: Time) -> Bool {
        guard case .subscribed(let subscription) = upstream else { return false }
        lastEventTime = now
        upstream = .pendingTerminal(subscription)
        switch waiting {
        case .nothing:
            waiting = .completion(completion)
            return true
        case .value(let value):
            waiting = .valueThenCompletion(value, completion)
            return false
        case .completion, .valueThenCompletion:
            return false
        }
    }

    /// The scheduled emission runs: returns the value and/or completion to deliver, in that order, and whether the
    /// caller must read the clock and report it (``emitted(at:)``): a value is emitted without a completion.
    mutating func emissionFired() -> (value: Output?, completion: Completion?, readClock: Bool) {
        switch upstream {
        case .awaiting, .terminal: return (nil, nil, false)
        case .subscribed, .pendingTerminal: break
        }
        defer { waiting = .nothing }
        switch waiting {
        case .nothing:
            // Every emission is scheduled for what waits, and only an emission or the end takes it.
            impossibleEvent("ThrottleStateMachine: emissionFired with nothing waiting")
        case .value(let value):
            lastEmission = .readingClock
            return (value, nil, true)
        case .completion(let completion):
            upstream = .terminal
            return (nil, completion, false)
        case .valueThenCompletion(let value, let completion):
            upstream = .terminal
            return (value, completion, false)
        }
    }

    /// The emission read the clock: the last emission happened at `now`.
    mutating func emitted(at now: Time) {
        lastEmission = .at(now)
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
        defer { waiting = .nothing }
        switch waiting {
        case .value(let value), .valueThenCompletion(let value, _): return (subscription, value)
        case .nothing, .completion: return (subscription, nil)
        }
    }
}
