import UntangleSync

/// The `Cancellable` returned by Untangle's repeating `schedule(after:interval:tolerance:options:_:)`.
///
/// It owns a `stop` closure (cancel a dispatch timer, invalidate a `Timer`, drop virtual-time entries) and a gate the
/// repeating action checks before each run.
///
/// ```swift
/// let cancellable = RepeatingActionCancellable()
/// let action = cancellable.gating(action)   // timer handler: action.run()
/// cancellable.setStop { timer.cancel() }
/// ```
///
/// **Thread safety:** `cancel()` may be called from any thread, any number of times, concurrently; `stop` runs
/// exactly once, outside the lock. Deinitialization cancels, as Apple's `AnyCancellable` does.
package final class RepeatingActionCancellable: Cancellable, Sendable {
    /// The shared state: the action's handler holds the gate, never the cancellable itself, so that dropping the
    /// cancellable deinitializes it (and so cancels).
    package struct Gate: Sendable {
        fileprivate let state: LockedBox<State>

        /// Whether the action may still run. An action that passed this check just before `cancel()` may still be
        /// running after `cancel()` returns; no action starts a check after that.
        package var isOpen: Bool {
            state.withCriticalSection { state in
                if case .cancelled = state { return false }
                return true
            }
        }
    }

    fileprivate enum State: Sendable {
        case open(stop: ScheduledAction?)
        case cancelled
    }

    /// The gate to capture in the repeating action's handler.
    package let gate = Gate(state: LockedBox(tracking: State.open(stop: nil)))

    /// Creates an open, not yet armed cancellable.
    package init() {}

    /// `action` as each firing runs it: only while this cancellable is open. The result holds the gate, never the
    /// cancellable (dropping the cancellable still cancels), and the gate also stops a firing that the timer had
    /// already begun when `cancel()` ran on another thread.
    package func gating(_ action: @escaping () -> Void) -> ScheduledAction {
        let gate = gate
        let action = ScheduledAction(action)
        return ScheduledAction {
            if gate.isOpen { action.run() }
        }
    }

    /// Installs the closure that stops the underlying timer. If `cancel()` already ran, `stop` runs now.
    package func setStop(_ stop: @escaping () -> Void) {
        // The timers (`DispatchSourceTimer`, Foundation's `Timer`) are thread-safe to cancel or invalidate from any
        // thread but are not annotated `Sendable`: carry the closure in the same unchecked wrapper as user actions.
        let stop = ScheduledAction(stop)
        let alreadyCancelled = gate.state.withCriticalSection { state -> Bool in
            guard case .open = state else { return true }
            state = .open(stop: stop)
            return false
        }
        if alreadyCancelled {
            stop.run()
        }
    }

    package func cancel() {
        // Take the stop closure out under the lock and call it (and release it, with whatever the timer's handler
        // captured) after unlocking: the second and later calls find `.cancelled` and do nothing.
        let stop = gate.state.withCriticalSection { state -> ScheduledAction? in
            guard case .open(let stop) = state else { return nil }
            state = .cancelled
            return stop
        }
        stop?.run()
    }

    deinit {
        cancel()
    }
}
