import UntangleSync

/// A user action handed to a scheduler, carried to the thread that will run it.
///
/// ```swift
/// let action = ScheduledAction { print("ran") }
/// DispatchQueue.global().async { action.run() }
/// ```
///
/// **Thread safety:** `run()` may be called from any thread; it asserts (debug builds) that no library lock is held.
// Apple's `Scheduler` takes a plain `() -> Void` and, by design, runs it on another thread (a queue, a run loop, an
// operation queue). The closure is not `Sendable` in that API, so the transfer is unchecked here, exactly as it is in
// Apple's implementation: what the action captures is the caller's responsibility. Nothing in the library reads or
// mutates the closure's captures; it only invokes it.
package struct ScheduledAction: @unchecked Sendable {
    private let body: () -> Void

    /// Wraps `body`.
    package init(_ body: @escaping () -> Void) {
        self.body = body
    }

    /// Runs the action. This is a callout point: no library lock may be held.
    package func run() {
        CalloutCheck.assertNoLockHeld("running a scheduled action")
        body()
    }
}
