/// The pure state machine of `timeout`: the upstream's phase, the repeating timer currently armed (and its
/// generation, which a firing must match), and whether the first downstream request has re-armed the clock. It never
/// calls out: timers are created, cancelled and fired by the caller, after unlocking.
///
/// As in Apple's Combine: the clock starts when the upstream's subscription arrives and again at the first
/// downstream request; every upstream value and the upstream's completion stop it, and a value starts it again. The
/// upstream's completion is scheduled and delivered from the scheduler; until it is, the stream still counts as
/// running (a request is forwarded, `cancel()` cancels). A firing ends the stream at once.
///
/// **Demand:** not tracked here: requests pass straight upstream.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct TimeoutStateMachine<Downstream>: ScheduledTimerStateMachine {
    private(set) var upstream = UpstreamSlot.awaiting
    /// The downstream, handed to every scheduled action and timer so that it lives until the scheduler lets go of
    /// them (as Apple's scheduled closures keep it); dropped when the stream ends.
    private var downstream: Downstream?
    /// The armed timer (nil while none is armed, or while its replacement is being created).
    private var timer: Cancellable?
    /// Bumped whenever the armed timer is replaced or stopped: a firing or a new timer of an older generation is
    /// stale.
    private var generation = 0
    private var requested = false

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream's subscription arrived: returns the generation of the timer to arm, or nil (cancel it: not the
    /// first one).
    mutating func receiveSubscription(_ subscription: Subscription) -> Rearm? {
        guard case .awaiting = upstream, let downstream else { return nil }
        upstream = .subscribed(subscription)
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
        guard armed == generation, case .subscribed = upstream else { return new }
        timer = new
        return nil
    }

    /// Stops the armed timer: returns it (to cancel outside the lock), the next generation and the downstream.
    private mutating func restartClock() -> Rearm? {
        guard let downstream else { return nil }
        generation += 1
        defer { timer = nil }
        return Rearm(stale: timer, generation: generation, downstream: downstream)
    }

    /// An upstream value arrived: nil to ignore it, else the timer to replace.
    mutating func receiveValue() -> Rearm? {
        guard case .subscribed = upstream else { return nil }
        return restartClock()
    }

    /// The upstream completed: nil to ignore it, else the timer to cancel (its replacement is not armed; the
    /// completion is scheduled, keeping the downstream alive).
    mutating func receiveCompletion() -> Rearm? {
        guard case .subscribed = upstream else { return nil }
        return restartClock()
    }

    /// A scheduled value is due: the stream still runs.
    var isRunning: Bool {
        if case .subscribed = upstream { return true }
        return false
    }

    /// The downstream returned demand from `receive(_:)`: the subscription to request it from, while the stream
    /// runs.
    func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? {
        upstream.subscription
    }

    /// The downstream requested: returns the subscription to forward to and, for the first request, the timer to
    /// cancel and the generation of the one to arm.
    mutating func request() -> (Subscription, rearm: Rearm?)? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        guard !requested else { return (subscription, nil) }
        requested = true
        return (subscription, restartClock())
    }

    /// The stream ends (the scheduled completion is due, the timer fired, or the downstream cancelled): returns the
    /// upstream subscription and the timer to handle outside the lock, or nil if it had already ended (or the firing
    /// is stale: `generation` given and not the current one).
    mutating func end(firing fired: Int? = nil) -> (
        upstream: Subscription, timer: Cancellable?, downstream: Downstream?
    )? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        if let fired, fired != generation { return nil }
        upstream = .ended
        generation += 1
        defer {
            timer = nil
            downstream = nil
        }
        return (subscription, timer, downstream)
    }
}
