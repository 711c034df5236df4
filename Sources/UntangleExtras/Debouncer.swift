import Untangle
import UntangleSync

/// Runs an action only once calls stop coming for `dueTime`: the `DispatchWorkItem` debounce, on any `Scheduler`
/// and without its traps (a work item cancelled on one thread while it starts on another, a captured `self` that
/// keeps the screen alive, a closure run under the caller's lock).
///
/// Each ``call(_:)`` restarts the quiet period. With `.trailing` (the default) the last action of a burst runs when
/// the period ends; with `.leading` the first action of a burst runs at once and the others are dropped; with both,
/// the first runs at once and the last (if there was more than one call) runs when the period ends.
///
/// ```swift
/// let debouncer = Debouncer(dueTime: .milliseconds(300), scheduler: DispatchQueue.main)
/// func textChanged(_ text: String) {
///     debouncer.call { [weak self] in self?.search(text) }
/// }
/// ```
///
/// Actions run on `scheduler` (a leading action through `schedule(options:_:)`, a trailing one when the timer
/// fires), so with a serial scheduler they never overlap. ``cancel()`` drops the pending action; the debouncer
/// stays usable. Deinitializing the debouncer drops its pending action too (the timers hold it weakly).
///
/// **Thread safety:** `call` and `cancel` may be called from any thread, concurrently. The decision is made under a
/// lock; actions run on the scheduler, outside every lock, and an action's release happens outside the lock too.
public final class Debouncer<Context: Scheduler>: Cancellable, @unchecked Sendable {
    // @unchecked Sendable: the stored properties are immutable; the state lives in the core's LockedBox.

    private let dueTime: Context.SchedulerTimeType.Stride
    private let core: ScheduledCore<DebouncerStateMachine, Context>

    /// Creates a debouncer.
    ///
    /// - Precondition: `edges` is not empty.
    public init(
        dueTime: Context.SchedulerTimeType.Stride, scheduler: Context, edges: TimingEdges = .trailing,
        options: Context.SchedulerOptions? = nil
    ) {
        precondition(!edges.isEmpty, "Debouncer: edges must contain .leading, .trailing or both")
        self.dueTime = dueTime
        core = ScheduledCore(state: DebouncerStateMachine(edges: edges), scheduler: scheduler, options: options)
    }

    /// Submits an action: it runs (or not) according to the edges, once calls stop for `dueTime`.
    public func call(_ action: @escaping () -> Void) {
        let (generation, runNow, replaced) = core.withCriticalSection { $0.call(action) }
        // The replaced action may hold the last reference to user objects: released here, after unlocking.
        core.release(replaced)
        if runNow {
            core.schedule(options: core.options, action)
        }
        core.schedule(afterInterval: dueTime) { [weak self] in
            self?.fire(generation)
        }
    }

    private func fire(_ generation: Int) {
        let action = core.withCriticalSection { $0.fire(generation) }
        CalloutCheck.assertNoLockHeld("Debouncer running its action")
        action?()
    }

    /// Drops the pending action and ends the burst; later calls start a new one.
    public func cancel() {
        core.release(core.withCriticalSection { $0.cancel() })
    }
}
