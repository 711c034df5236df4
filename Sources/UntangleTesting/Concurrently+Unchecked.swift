import Foundation

// The verifier runs closures that capture the user's (possibly non-Sendable) publisher, fixture and probe on its own
// threads; that is its documented behaviour. These wrappers carry such closures across.
extension Concurrently {
    static func watchdogUnchecked(timeout: TimeInterval, _ body: @escaping () -> Void) -> Bool {
        let body = UncheckedSendable(body)
        return watchdog(timeout: timeout) { body.value() }
    }

    static func runUnchecked(threads: Int, timeout: TimeInterval, _ body: @escaping (Int) -> Void) -> Bool {
        let body = UncheckedSendable(body)
        return run(threads: threads, timeout: timeout) { body.value($0) }
    }

    /// Starts `body` on a new thread and returns a semaphore signalled when it returns.
    static func startUnchecked(_ body: @escaping () -> Void) -> DispatchSemaphore {
        let body = UncheckedSendable(body)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body.value()
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        return done
    }
}
