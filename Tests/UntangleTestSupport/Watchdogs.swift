import Foundation
import UntangleTesting
import XCTest

/// Runs `body(i)` on `threads` dedicated threads released together; fails the test instead of hanging if they have
/// not all finished within `timeout` seconds.
package func runConcurrently(
    threads: Int,
    timeout: TimeInterval = 60,
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: @escaping @Sendable (Int) -> Void
) {
    if !Concurrently.run(threads: threads, timeout: timeout, body) {
        XCTFail("watchdog: \(threads) threads did not finish within \(timeout) s (deadlock?)", file: file, line: line)
    }
}

/// Runs `body` on a fresh thread and fails (instead of hanging) if it does not return within `timeout` seconds.
/// Returns whether it finished.
@discardableResult
package func withWatchdog(
    _ what: String, timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable () -> Void
) -> Bool {
    if !Concurrently.watchdog(timeout: timeout, body) {
        XCTFail("watchdog: \(what) did not finish within \(timeout) s (deadlock?)", file: file, line: line)
        return false
    }
    return true
}
