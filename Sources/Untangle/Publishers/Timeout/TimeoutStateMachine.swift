/// The pure state machine of `timeout`: its phase (waiting for the upstream; running with the upstream's
/// subscription, the downstream, the repeating timer currently armed and whether the first downstream request has
/// re-armed the clock; ended) and the timer's generation, which a firing must match. It never calls out: timers are
/// created, cancelled and fired by the caller, after unlocking.
///
/// As in Apple's Combine: the clock starts when the upstream's subscription arrives and again at the first
/// downstream request; every upstream value and the upstream's completion stop it, and a value starts it again. The
/// upstream's completion is scheduled and delivered from the scheduler; until it is, the stream still counts as
/// running (a request is forwarded, `cancel()` cancels). A firing ends the stream at once.
///
/// **Demand:** not tracked here: requests pass straight upstream.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct TimeoutStateMachine<Downstream>: ScheduledTimerStateMachine {
    /// Whether the first downstream request has re-armed the clock (Apple's timeout starts it again there).
    enum Clock {
        /// Running since the upstream's subscription arrived (or the last value): the first request re-arms it.
        case awaitingFirstRequest
        /// The first request re-armed it; later requests leave it alone.
        case firstRequestSeen
    }

    /// The operator's phase. The downstream is handed to every scheduled action and timer so that it lives until
    /// the scheduler lets go of them (as Apple's scheduled closures keep it); dropped when the stream ends.
    enum Phase {
        case awaitingSubscription(Downstream)
        /// The stream runs (also while the upstream's completion waits on the scheduler). `timer` is the armed
        /// timer (nil while none is armed, or while its replacement is being created).
        case running(Subscription, Downstream, timer: Cancellable?, clock: Clock)
        /// Timed out, completed, or cancelled.
        case ended
    }

    private(set) var phase: Phase
    /// Bumped whenever the armed timer is replaced or stopped: a firing or a new timer of an older generation is
    /// stale.
    private(set) var generation = 0

    init(downstream: Downstream) {
        phase = .awaitingSubscription(downstream)
    }

    /// The upstream's subscription arrived: returns the generation of the timer to arm, or nil (cancel it: not the
    /// first one).
    mutating func receiveSubscription(_ subscription: Subscription) -> Rearm? {
        guard case .awaitingSubscription(let downstream) = phase else { return nil }
        phase = .running(subscription, downstream, timer: nil, clock: .awaitingFirstRequest)
        generation += 1
        return Rearm(stale: nil, generation: generation, downstream: downstream)
    }

    /// A timer to replace: the old one (to cancel), the new one's generation, and the downstream it keeps alive.
    struct Rearm {
        let stale: Cancellable?
        let generation: Int
        let downstream: Downstream
    }

    /// A timer of `generation` was created: returns the timer to cancel outside the lock (the new one if it is
    /// already stale, else nil).
    mutating func timerArmed(_ new: Cancellable, generation armed: Int) -> Cancellable? {
        guard armed <= generation else { impossibleEvent("TimeoutStateMachine: timerArmed for a generation not begun") }
        guard armed == generation, case .running(let subscription, let downstream, let timer, let clock) = phase else {
            return new
        }
        guard timer == nil else { impossibleEvent("TimeoutStateMachine: timerArmed twice for one generation") }
        phase = .running(subscription, downstream, timer: new, clock: clock)
        return nil
    }

    /// Stops the armed timer: returns it (to cancel outside the lock), the next generation and the downstream.
    private mutating func restartClock(clock: Clock) -> Rearm? {
        guard case .running(let subscription, let downstream, let timer, _) = phase else { return nil }
        generation += 1
        phase = .running(subscription, downstream, timer: nil, clock: clock)
        return Rearm(stale: timer, generation: generation, downstream: downstream)
    }

    /// An upstream value arrived: nil to ignore it, else the timer to replace.
    mutating func receiveValue() -> Rearm? {
        guard case .running(_, _, _, let clock) = phase else { return nil }
        return restartClock(clock: clock)
    }

    /// The upstream completed: nil to ignore it, else the timer to cancel (its replacement is not armed; the
    /// completion is scheduled, keeping the downstream alive).
    mutating func receiveCompletion() -> Rearm? {
        guard case .running(_, _, _, let clock) = phase else { return nil }
        return restartClock(clock: clock)
    }

    /// A scheduled value is due: the stream still runs.
    var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// The downstream returned demand from `receive(_:)`: the subscription to request it from, while the stream
    /// runs.
    func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? {
        guard case .running(let subscription, _, _, _) = phase else { return nil }
        return subscription
    }

    /// The downstream requested: returns the subscription to forward to and, for the first request, the timer to
    /// cancel and the generation of the one to arm.
    mutating func request() -> (Subscription, rearm: Rearm?)? {
        guard case .running(let subscription, _, _, let clock) = phase else { return nil }
        guard case .awaitingFirstRequest = clock else { return (subscription, nil) }
        return (subscription, restartClock(clock: .firstRequestSeen))
    }

    /// The stream ends (the scheduled completion is due, the timer fired, or the downstream cancelled): returns the
    /// upstream subscription and the timer to handle outside the lock, or nil if it had already ended (or the firing
    /// is stale: `generation` given and not the current one).
    mutating func end(firing fired: Int? = nil) -> (
        upstream: Subscription, timer: Cancellable?, downstream: Downstream?
    )? {
        if let fired {
            guard fired <= generation else {
                impossibleEvent("TimeoutStateMachine: a timer fired for a generation not begun")
            }
            guard fired == generation else { return nil }
        }
        guard case .running(let subscription, let downstream, let timer, _) = phase else { return nil }
        phase = .ended
        generation += 1
        return (subscription, timer, downstream)
    }
}
