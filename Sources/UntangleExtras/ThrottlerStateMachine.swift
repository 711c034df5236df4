import Untangle

/// The pure state machine of a ``Throttler``: its phase (no window, or a window open with the trailing action it
/// keeps) and the generation that makes a window of the time before a cancel stale. It never calls out: actions run,
/// and the replaced or dropped ones are released, by the throttler after unlocking.
///
/// **Thread safety:** none: always mutated under the throttler's lock.
struct ThrottlerStateMachine {
    enum Phase {
        /// No window is open: the next call opens one.
        case closed
        /// A window is open (its end scheduled); `pending` is the action to run when it ends.
        case open(pending: (() -> Void)?)
    }

    let edges: TimingEdges
    /// Whether a later call replaces the pending one (true) or the first one is kept.
    let latest: Bool
    private(set) var phase = Phase.closed
    /// Bumped by cancel: a window's end acts only if the throttler was not cancelled since it opened.
    private(set) var generation = 0

    init(edges: TimingEdges, latest: Bool) {
        self.edges = edges
        self.latest = latest
    }

    /// What a call does.
    struct Call {
        /// The generation of the window this call opened, whose end to schedule (nil: one is open already).
        var openedWindow: Int?
        /// Run the action at once (the leading edge).
        var runNow: Bool
        /// The action dropped or replaced, to release after unlocking.
        var released: (() -> Void)?
    }

    mutating func call(_ action: @escaping () -> Void) -> Call {
        switch phase {
        case .closed where edges.contains(.leading):
            phase = .open(pending: nil)
            return Call(openedWindow: generation, runNow: true, released: nil)
        case .closed:
            phase = .open(pending: action)
            return Call(openedWindow: generation, runNow: false, released: nil)
        case .open(let pending):
            guard edges.contains(.trailing), latest || pending == nil else {
                return Call(openedWindow: nil, runNow: false, released: action)
            }
            phase = .open(pending: action)
            return Call(openedWindow: nil, runNow: false, released: pending)
        }
    }

    /// The window opened at `opened` ends: returns its pending action to run (which opens the next window: the
    /// caller schedules its end), or nil (the window closes, or it is stale).
    mutating func windowEnded(_ opened: Int) -> (() -> Void)? {
        guard opened <= generation else {
            impossibleEvent("ThrottlerStateMachine: windowEnded for a generation not begun")
        }
        guard opened == generation, case .open(let pending) = phase else { return nil }
        guard let pending else {
            phase = .closed
            return nil
        }
        phase = .open(pending: nil)
        return pending
    }

    /// Drops the pending action (returned, to release after unlocking) and closes the window.
    mutating func cancel() -> (() -> Void)? {
        generation += 1
        defer { phase = .closed }
        guard case .open(let pending) = phase else { return nil }
        return pending
    }
}
