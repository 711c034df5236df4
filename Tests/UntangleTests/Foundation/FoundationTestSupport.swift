import Foundation
import UntangleSync
import XCTest

/// A dedicated thread running its run loop in the default mode until stopped (RunLoop scheduler and Foundation
/// publisher tests).
///
/// swift-corelibs-foundation's `RunLoop.perform` does not wake a sleeping loop (see RunLoop+Scheduler.swift), so the
/// thread runs the loop in short slices and checks for `stop()` between them.
final class DedicatedRunLoop: @unchecked Sendable {
    // @unchecked Sendable: `runLoop` and `thread` are written once before `started` is signalled and only read after
    // the wait; `stopped` is a LockedBox.
    private let stopped = LockedBox(false)
    private let exited = DispatchSemaphore(value: 0)
    private(set) var runLoop: RunLoop!
    private(set) var thread: Thread!

    init(slice: TimeInterval = 0.05) {
        let started = DispatchSemaphore(value: 0)
        let stopped = stopped
        let exited = exited
        // Written on the new thread before `started.signal()`, read here after the wait: ordered by the semaphore.
        nonisolated(unsafe) var captured: (RunLoop, Thread)?
        let thread = Thread {
            captured = (RunLoop.current, Thread.current)
            // A timer far in the future keeps the run loop from returning at once when it has nothing else.
            let keepAlive = Timer(timeInterval: 3600, repeats: true) { _ in }
            RunLoop.current.add(keepAlive, forMode: .default)
            started.signal()
            while !stopped.withLock({ $0 }) {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: slice))
            }
            keepAlive.invalidate()
            exited.signal()
        }
        thread.start()
        precondition(started.wait(timeout: .now() + 30) == .success, "run loop thread did not start")
        (runLoop, self.thread) = captured!
    }

    /// Runs `body` on the run loop's thread and waits for it (30 s watchdog).
    func sync(_ body: @escaping @Sendable () -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let done = DispatchSemaphore(value: 0)
        runLoop.schedule {
            body()
            done.signal()
        }
        XCTAssertEqual(
            done.wait(timeout: .now() + 30), .success, "run loop did not run the block", file: file, line: line)
    }

    /// Lets the run loop run for at least `interval` (measured on its own clock), then returns (30 s watchdog).
    func letRun(for interval: TimeInterval, file: StaticString = #filePath, line: UInt = #line) {
        let done = DispatchSemaphore(value: 0)
        runLoop.schedule(after: runLoop.now.advanced(by: .init(interval))) { done.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "run loop did not run", file: file, line: line)
    }

    /// Asks the thread to stop after its current slice and, if `waitForExit`, waits for that (30 s watchdog).
    func stop(waitForExit: Bool = true) {
        stopped.withLock { $0 = true }
        guard waitForExit else { return }
        XCTAssertEqual(exited.wait(timeout: .now() + 30), .success, "run loop thread did not stop")
    }
}
