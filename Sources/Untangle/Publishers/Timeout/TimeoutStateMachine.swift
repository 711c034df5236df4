/// The pure state machine of `timeout`: its phase (waiting for the upstream, running, ended) with the upstream's
/// subscription, the downstream and the repeating timer currently armed it holds, whether the first downstream
/// request has re-armed the clock, and the timer's generation, which a firing must match. It never calls out: timers are
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

    /// The operator's phase. Legal moves: `awaitingSubscription` to `running` (the upstream's subscription),
    /// `running` to `ended` (timed out, the completion due, or a cancel).
    enum Phase: UInt8 {
        /// The upstream's subscription has not arrived: `downstream` is set.
        case awaitingSubscription
        /// The stream runs (also while the upstream's completion waits on the scheduler): `subscription` and
        /// `downstream` are set, `timer` while a timer is armed (nil while its replacement is being created).
        case running
        /// Timed out, completed, or cancelled: nothing is held.
        case ended
    }

    private(set) var phase = Phase.awaitingSubscription
    // Performance: what the phase holds is stored beside it, not in the payload of its cases: a decision on a phase
    // with payloads copies the whole payload out of the enum and destroys the copy, and every value restarts the
    // clock (a subject's values through `timeout` with a test scheduler advanced after each, under callgrind: about
    // 36,500 instructions per value before this machine had phases, 41,600 with the subscription, downstream, timer
    // and clock in the payload). The phase alone decides; these are storage, set and cleared with it.
    private var subscription: Subscription?
    /// The downstream, handed to every scheduled action and timer so that it lives until the scheduler lets go of
    /// them (as Apple's scheduled closures keep it); dropped when the stream ends.
    private var downstream: Downstream?
    private var timer: Cancellable?
    private(set) var clock = Clock.awaitingFirstRequest
    /// Bumped whenever the armed timer is replaced or stopped: a firing or a new timer of an older generation is
    /// stale.
    private(set) var generation = 0

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream's subscription arrived: returns the generation of the timer to arm, or nil (cancel it: not the
    /// first one).
    mutating func receiveSubscription(_ subscription: Subscription) -> Rearm? {
        guard case .awaitingSubscription = phase else { return nil }
        phase = .running
        self.subscription = subscription
        generation += 1
        return Rearm(stale: nil, generation: generation, downstream: downstream.unsafelyUnwrapped)
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
        guard armed == generation, case .running = phase else { return new }
        guard timer == nil else { impossibleEvent("TimeoutStateMachine: timerArmed twice for one generation") }
        timer = new
        return nil
    }

    /// Stops the armed timer: returns it (to cancel outside the lock), the next generation and the downstream.
    private mutating func restartClock() -> Rearm? {
        guard case .running = phase else { return nil }
        generation += 1
        return Rearm(stale: timer.take(), generation: generation, downstream: downstream.unsafelyUnwrapped)
    }

    /// An upstream value arrived: nil to ignore it, else the timer to replace.
    mutating func receiveValue() -> Rearm? {
        restartClock()
    }

    /// The upstream completed: nil to ignore it, else the timer to cancel (its replacement is not armed; the
    /// completion is scheduled, keeping the downstream alive).
    mutating func receiveCompletion() -> Rearm? {
        restartClock()
    }

    /// A scheduled value is due: the stream still runs.
    var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// The downstream returned demand from `receive(_:)`: the subscription to request it from, while the stream
    /// runs.
    func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? {
        guard case .running = phase else { return nil }
        return subscription
    }

    /// The downstream requested: returns the subscription to forward to and, for the first request, the timer to
    /// cancel and the generation of the one to arm.
    mutating func request() -> (Subscription, rearm: Rearm?)? {
        guard case .running = phase else { return nil }
        let subscription = self.subscription.unsafelyUnwrapped
        guard case .awaitingFirstRequest = clock else { return (subscription, nil) }
        clock = .firstRequestSeen
        return (subscription, restartClock())
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
        guard case .running = phase else { return nil }
        phase = .ended
        generation += 1
        return (subscription.take().unsafelyUnwrapped, timer.take(), downstream.take())
    }
}
