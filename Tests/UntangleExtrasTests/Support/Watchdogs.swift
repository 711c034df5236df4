import Foundation
import UntangleTesting
import XCTest

/// XCTest wrappers over UntangleTesting's `Concurrently`: a deadlock fails the test, it never hangs it.
func runConcurrently(
    threads: Int, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable (Int) -> Void
) {
    if !Concurrently.run(threads: threads, timeout: timeout, body) {
        XCTFail("watchdog: \(threads) threads did not finish within \(timeout) s (deadlock?)", file: file, line: line)
    }
}

@discardableResult
func withWatchdog(
    _ what: String, timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable () -> Void
) -> Bool {
    if !Concurrently.watchdog(timeout: timeout, body) {
        XCTFail("watchdog: \(what) did not finish within \(timeout) s (deadlock?)", file: file, line: line)
        return false
    }
    return true
}
