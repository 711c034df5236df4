import Untangle
import UntangleSync

/// Runs at most one action per `interval`: the first call of a window at once (leading edge) and, when the window
/// ends, the latest (or first) of the calls made during it (trailing edge), on any `Scheduler`.
///
/// With the default `[.leading, .trailing]`, a burst of calls runs the first at once and the last when the window
/// ends; running a trailing action opens a new window, so two actions are never closer than `interval`. With
/// `.leading` only, calls during a window are dropped; with `.trailing` only, the first call opens a window and the
/// chosen call runs when it ends. `latest: false` keeps the first call of the window instead of the last.
///
/// ```swift
/// let throttler = Throttler(interval: .seconds(1), scheduler: DispatchQueue.main)
/// func scrolled() {
///     throttler.call { [weak self] in self?.loadMoreIfNeeded() }
/// }
/// ```
///
/// Actions run on `scheduler`, so with a serial scheduler they never overlap. ``cancel()`` drops the pending action
/// and closes the window.
///
/// **Thread safety:** `call` and `cancel` may be called from any thread, concurrently. Decisions are made under a
/// lock; actions run on the scheduler, outside every lock.
public final class Throttler<Context: Scheduler>: Cancellable, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are immutable; the state lives in the core's LockedBox.

    private let interval: Context.SchedulerTimeType.Stride
    private let core: ScheduledCore<ThrottlerStateMachine, Context>

    /// Creates a throttler.
    ///
    /// - Precondition: `edges` is not empty.
    public init(
        interval: Context.SchedulerTimeType.Stride, scheduler: Context, edges: TimingEdges = [.leading, .trailing],
        latest: Bool = true, options: Context.SchedulerOptions? = nil
    ) {
        precondition(!edges.isEmpty, "Throttler: edges must contain .leading, .trailing or both")
        self.interval = interval
        core = ScheduledCore(
            state: ThrottlerStateMachine(edges: edges, latest: latest), scheduler: scheduler, options: options)
    }

    /// Submits an action: it runs at once if no window is open (leading edge), or is kept for the window's end
    /// (trailing edge), or is dropped.
    public func call(_ action: @escaping () -> Void) {
        let call = core.withCriticalSection { $0.call(action) }
        // A replaced or dropped action may hold the last reference to user objects: released after unlocking.
        core.release(call.released)
        if call.runNow {
            core.schedule(options: core.options, action)
        }
        if let opened = call.openedWindow {
            scheduleWindowEnd(opened)
        }
    }

    private func scheduleWindowEnd(_ generation: Int) {
        core.schedule(afterInterval: interval) { [weak self] in
            self?.windowEnded(generation)
        }
    }

    // The trailing action opens the next window, so actions stay at least `interval` apart.
    private func windowEnded(_ generation: Int) {
        guard let action = core.withCriticalSection({ $0.windowEnded(generation) }) else { return }
        scheduleWindowEnd(generation)
        CalloutCheck.assertNoLockHeld("Throttler running its action")
        action()
    }

    /// Drops the pending action and closes the window; the next call starts afresh.
    public func cancel() {
        core.release(core.withCriticalSection { $0.cancel() })
    }
}
