/// The pure state machine of `debounce`: the latest upstream value waiting for a quiet period, and the generation a
/// scheduled firing must match to deliver it. It never calls out.
///
/// Every upstream value bumps the generation, so the firing scheduled for an older value finds itself stale and
/// does nothing: only a value followed by `dueTime` of silence is delivered.
///
/// **Demand:** not tracked here: the upstream is asked for `.unlimited` and the emitter drops a due value when the
/// downstream has no demand for it.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct DebounceStateMachine<Output> {
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case ended
    }

    private(set) var upstream = Upstream.awaiting
    private(set) var generation = 0
    private var pending: Output?
    /// The upstream completed or the downstream cancelled.
    private(set) var closed = false

    /// The upstream's subscription arrived: false means it must be cancelled.
    mutating func receiveSubscription(_ subscription: Subscription) -> Bool {
        guard case .awaiting = upstream, !closed else { return false }
        upstream = .subscribed(subscription)
        return true
    }

    /// A value arrived: returns the generation its firing must match and the value it replaces (to release outside
    /// the lock), or nil if the value is ignored.
    mutating func receiveValue(_ value: Output) -> (generation: Int, replaced: Output?)? {
        guard !closed else { return nil }
        generation += 1
        defer { pending = value }
        return (generation, pending)
    }

    /// A scheduled firing runs: returns the value to deliver if nothing arrived since it was scheduled.
    mutating func fire(generation armed: Int) -> Output? {
        guard armed == generation, !closed else { return nil }
        defer { pending = nil }
        return pending
    }

    /// The upstream completed, or the downstream cancelled: returns the upstream state and the dropped pending
    /// value to handle outside the lock, or nil if already closed.
    mutating func close() -> (upstream: Upstream, dropped: Output?)? {
        guard !closed else { return nil }
        closed = true
        generation += 1
        defer {
            upstream = .ended
            pending = nil
        }
        return (upstream, pending)
    }
}
