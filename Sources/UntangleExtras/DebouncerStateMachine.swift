import Untangle

/// The pure state machine of a ``Debouncer``: its phase (idle, or a burst in progress with the trailing action it
/// keeps) and the generation that makes a timer of an earlier call stale. It never calls out: actions run, and the
/// replaced ones are released, by the debouncer after unlocking.
///
/// **Thread safety:** none: always mutated under the debouncer's lock.
struct DebouncerStateMachine {
    enum Phase {
        /// No burst: the next call starts one (and runs at once with `.leading`).
        case idle
        /// Calls keep coming; `pending` is the trailing action to run when they stop (nil: none, or `.leading`
        /// only).
        case burst(pending: (() -> Void)?)
    }

    let edges: TimingEdges
    private(set) var phase = Phase.idle
    /// Bumped by every call and by cancel: a timer fires only if nothing happened since it was set.
    private(set) var generation = 0

    init(edges: TimingEdges) {
        self.edges = edges
    }

    /// A call: returns the generation of the quiet-period timer to set, whether to run `action` at once (the
    /// leading edge), and the pending action it replaced (to release after unlocking).
    mutating func call(_ action: @escaping () -> Void) -> (generation: Int, runNow: Bool, replaced: (() -> Void)?) {
        generation += 1
        switch phase {
        case .idle where edges.contains(.leading):
            phase = .burst(pending: nil)
            return (generation, true, nil)
        case .idle:
            phase = .burst(pending: action)
            return (generation, false, nil)
        case .burst(let pending):
            guard edges.contains(.trailing) else { return (generation, false, nil) }
            phase = .burst(pending: action)
            return (generation, false, pending)
        }
    }

    /// The timer of `fired` fired: if no call came since, the burst ends and its trailing action (if any) is
    /// returned to run.
    mutating func fire(_ fired: Int) -> (() -> Void)? {
        guard fired <= generation else { impossibleEvent("DebouncerStateMachine: fire for a generation not begun") }
        guard fired == generation, case .burst(let pending) = phase else { return nil }
        phase = .idle
        return pending
    }

    /// Drops the pending action (returned, to release after unlocking) and ends the burst.
    mutating func cancel() -> (() -> Void)? {
        generation += 1
        defer { phase = .idle }
        guard case .burst(let pending) = phase else { return nil }
        return pending
    }
}
