/// The pure state machine of `debounce`: its phase (waiting for the upstream, running with the upstream's
/// subscription and the downstream, ended), the latest upstream value, the downstream's demand, and the repeating
/// timer armed for the latest value (its generation, and its own phase: being created or armed). It never calls out: timers are created, cancelled
/// and fired by the caller, after unlocking.
///
/// As in Apple's Combine: every upstream value bumps the generation and arms a timer; a timer whose generation is
/// no longer the current one does nothing (it is cancelled); the current one delivers the latest value if the
/// downstream has demand (and drops it otherwise). The latest value is kept after delivery (the mirror shows it).
///
/// **Demand:** the downstream's requests are counted here (the upstream is asked for `.unlimited`); a due value
/// uses one unit, the demand the downstream returns is added.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct DebounceStateMachine<Output, Downstream> {
    /// A generation's timer: being created (outside the lock), or armed.
    enum Timer {
        case pending
        case armed(Cancellable)
    }

    /// The operator's phase, each with what it holds.
    enum Phase {
        case awaitingSubscription(Downstream)
        case running(Subscription, Downstream)
        /// The upstream completed or the downstream cancelled.
        case ended
    }

    private(set) var phase: Phase
    private(set) var demand = Subscribers.Demand.none
    private(set) var currentValue: Output?
    private var generation = 0
    /// The timer of the current generation, until it fires (or the next value replaces it). Older generations keep
    /// none: their timers are handed back for cancelling when a newer value arrives, or at once when armed late.
    private var timer: Timer?

    init(downstream: Downstream) {
        phase = .awaitingSubscription(downstream)
    }

    /// The downstream, until the stream ends (the mirror shows it).
    var downstream: Downstream? {
        switch phase {
        case .awaitingSubscription(let downstream), .running(_, let downstream): return downstream
        case .ended: return nil
        }
    }

    /// The upstream's subscription arrived: the downstream to hand the subscription to, or nil (cancel it).
    mutating func receiveSubscription(_ subscription: Subscription) -> Downstream? {
        guard case .awaitingSubscription(let downstream) = phase else { return nil }
        phase = .running(subscription, downstream)
        return downstream
    }

    /// A value arrived: nil to ignore it; else the generation of the timer to arm, the timer it replaces (to
    /// cancel outside the lock), the value it replaces (to release outside the lock), and the downstream the timer
    /// keeps alive (as Apple's timers do, through the subscription).
    mutating func receiveValue(_ value: Output) -> (
        generation: Int, stale: Cancellable?, replaced: Output?, downstream: Downstream
    )? {
        guard case .running(_, let downstream) = phase else { return nil }
        generation += 1
        let replaced = currentValue
        currentValue = value
        let stale = takeTimer()
        timer = .pending
        return (generation, stale, replaced, downstream)
    }

    /// The timer of `armed` was created: returns it to cancel outside the lock if it is no longer wanted.
    mutating func timerArmed(_ timer: Cancellable, generation armed: Int) -> Cancellable? {
        guard armed <= generation else {
            impossibleEvent("DebounceStateMachine: timerArmed for a generation not begun")
        }
        if armed == generation, case .armed? = self.timer {
            impossibleEvent("DebounceStateMachine: timerArmed twice for one generation")
        }
        guard armed == generation, case .pending? = self.timer else { return timer }
        self.timer = .armed(timer)
        return nil
    }

    enum Firing {
        /// Stale or over: nothing (cancel `timer` if any).
        case ignore(cancel: Cancellable?)
        /// Cancel `timer`, then deliver `value` if there is one (nil: no demand, dropped).
        case deliver(Output?, cancel: Cancellable?)
    }

    /// The timer of `fired` fires.
    mutating func fire(generation fired: Int) -> Firing {
        guard fired <= generation else {
            impossibleEvent("DebounceStateMachine: a timer fired for a generation not begun")
        }
        guard case .running = phase else { return .ignore(cancel: nil) }
        guard fired == generation, let value = currentValue else {
            if fired == generation, case .armed(let timer)? = self.timer { return .ignore(cancel: timer) }
            return .ignore(cancel: nil)
        }
        // A timer may fire from inside its own `schedule` call (an immediate scheduler), before it is armed.
        let timer: Cancellable?
        switch self.timer {
        case .armed(let armed)?: timer = armed
        case .pending?: timer = nil
        case nil: return .ignore(cancel: nil)
        }
        self.timer = nil
        guard demand > .none else { return .deliver(nil, cancel: timer) }
        demand -= 1
        return .deliver(value, cancel: timer)
    }

    mutating func addDemand(_ more: Subscribers.Demand) {
        guard case .running = phase else { return }
        demand += more
    }

    private mutating func takeTimer() -> Cancellable? {
        defer { timer = nil }
        if case .armed(let armed)? = timer { return armed }
        return nil
    }

    /// The upstream completed or the downstream cancelled: nil if already over; else the upstream subscription,
    /// the timer to cancel, and the downstream and latest value to release outside the lock.
    mutating func end() -> (upstream: Subscription, timer: Cancellable?, downstream: Downstream?, value: Output?)? {
        guard case .running(let subscription, let downstream) = phase else { return nil }
        phase = .ended
        defer { currentValue = nil }
        return (subscription, takeTimer(), downstream, currentValue)
    }
}

extension DebounceStateMachine: ScheduledTimerStateMachine {
    /// The demand the downstream returned is counted here, like a request.
    mutating func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? {
        addDemand(demand)
        return nil
    }
}
