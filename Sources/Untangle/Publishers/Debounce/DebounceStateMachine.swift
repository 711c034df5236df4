/// The pure state machine of `debounce`: its phase (waiting for the upstream, running with the upstream's
/// subscription and the downstream, finishing with the value that waited at the finish, ended), the latest upstream
/// value, the downstream's demand, and the repeating timer armed for the latest value (its generation, and its own
/// phase: being created or armed). It never calls out: timers are created, cancelled and fired by the caller, after
/// unlocking.
///
/// As in Apple's Combine: every upstream value bumps the generation and arms a timer; a timer whose generation is
/// no longer the current one does nothing (it is cancelled); the current one delivers the latest value if the
/// downstream has demand (and drops it otherwise). The latest value is kept after delivery (the mirror shows it).
///
/// With `deliversPendingValueOnFinish` (UntangleExtras' RxSwift-style debounce; a constant, off for the public
/// operator, read only when the upstream completes), a value still counting down when the upstream finishes is
/// delivered before the completion: the caller schedules a finishing check, which delivers it and finishes if the
/// downstream has demand, and otherwise waits for the next request to schedule the check again. A failure still
/// drops it.
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
        /// The upstream finished with a value counting down (`currentValue`): a finishing check is scheduled.
        /// `own` is the operator's subscription, whose `request` a demand returned later is handed to.
        case finishing(Downstream, own: Subscription)
        /// The finishing check found no demand: the next request schedules it again.
        case finishingAwaitingDemand(Downstream, own: Subscription)
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
    /// RxSwift's rule: a value counting down when the upstream finishes is delivered before the completion.
    private let deliversPendingValueOnFinish: Bool

    init(downstream: Downstream, deliversPendingValueOnFinish: Bool = false) {
        phase = .awaitingSubscription(downstream)
        self.deliversPendingValueOnFinish = deliversPendingValueOnFinish
    }

    /// The downstream, until the stream ends (the mirror shows it).
    var downstream: Downstream? {
        switch phase {
        case .awaitingSubscription(let downstream), .running(_, let downstream), .finishing(let downstream, _),
            .finishingAwaitingDemand(let downstream, _):
            return downstream
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

    /// The downstream asked for `more`: true when a finishing check is to be scheduled (it was waiting for demand).
    @discardableResult
    mutating func addDemand(_ more: Subscribers.Demand) -> Bool {
        switch phase {
        case .running, .finishing:
            demand += more
            return false
        case .finishingAwaitingDemand(let downstream, let own):
            demand += more
            guard demand > .none else { return false }
            phase = .finishing(downstream, own: own)
            return true
        case .awaitingSubscription, .ended:
            return false
        }
    }

    enum Completing {
        /// The stream is over: release these, then deliver the completion.
        case end(timer: Cancellable?, downstream: Downstream?, value: Output?)
        /// The value counting down goes first: cancel `timer`, release `upstream`, schedule the finishing check.
        case deliverPendingValue(timer: Cancellable?, upstream: Subscription)
    }

    /// The upstream completed (`finished`: without failing); `own` is the operator's subscription. Nil if already
    /// over.
    mutating func upstreamCompleted(finished: Bool, own: Subscription) -> Completing? {
        // The option is read only here, once per stream: the value path does not see it.
        guard deliversPendingValueOnFinish, finished, timer != nil, currentValue != nil,
            case .running(let upstream, let downstream) = phase
        else {
            return end().map { .end(timer: $0.timer, downstream: $0.downstream, value: $0.value) }
        }
        phase = .finishing(downstream, own: own)
        return .deliverPendingValue(timer: takeTimer(), upstream: upstream)
    }

    /// What the finishing check found.
    enum FinishingCheck {
        /// No demand: wait for the next request (or a cancel).
        case awaitDemand
        /// Deliver the value, then finish; release the rest after unlocking.
        case deliver(Output, released: (Downstream, Subscription))
    }

    /// The scheduled finishing check runs: nil if the stream ended meanwhile (a cancel).
    mutating func finishingCheck() -> FinishingCheck? {
        switch phase {
        case .finishing(let downstream, let own):
            guard demand > .none else {
                phase = .finishingAwaitingDemand(downstream, own: own)
                return .awaitDemand
            }
            guard let value = currentValue else {
                impossibleEvent("DebounceStateMachine: finishing with no value in finishing")
            }
            demand -= 1
            phase = .ended
            currentValue = nil
            return .deliver(value, released: (downstream, own))
        case .ended:
            return nil
        case .awaitingSubscription, .running, .finishingAwaitingDemand:
            impossibleEvent("DebounceStateMachine: a finishing check in \(phase)")
        }
    }

    private mutating func takeTimer() -> Cancellable? {
        defer { timer = nil }
        if case .armed(let armed)? = timer { return armed }
        return nil
    }

    /// The upstream completed or the downstream cancelled: nil if already over; else the upstream subscription (nil
    /// once it finished), the timer to cancel, and what to release outside the lock: the downstream, the latest value
    /// and the operator's own subscription (kept while finishing).
    mutating func end() -> (
        upstream: Subscription?, timer: Cancellable?, downstream: Downstream?, value: Output?, own: Subscription?
    )? {
        let ending: (upstream: Subscription?, downstream: Downstream, own: Subscription?)
        switch phase {
        case .running(let subscription, let downstream): ending = (subscription, downstream, nil)
        case .finishing(let downstream, let own), .finishingAwaitingDemand(let downstream, let own):
            ending = (nil, downstream, own)
        case .awaitingSubscription, .ended: return nil
        }
        phase = .ended
        defer { currentValue = nil }
        return (ending.upstream, takeTimer(), ending.downstream, currentValue, ending.own)
    }
}

extension DebounceStateMachine: ScheduledTimerStateMachine {
    /// The demand the downstream returned is counted here, like a request; while finishing waits for demand, it is
    /// handed to the operator's own `request` instead (which schedules the finishing check after unlocking).
    mutating func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? {
        if case .finishingAwaitingDemand(_, let own) = phase { return own }
        addDemand(demand)
        return nil
    }
}
