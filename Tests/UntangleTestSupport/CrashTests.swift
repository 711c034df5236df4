import Foundation
import XCTest

/// `true` in the child process started by ``assertPreconditionFailure(inTest:message:file:line:)``.
package let isCrashChild = ProcessInfo.processInfo.environment["UNTANGLE_CRASH_CHILD"] == "1"

/// Runs one test of this test binary in a child process (with `UNTANGLE_CRASH_CHILD=1`, so that the test performs its
/// crashing action) and asserts the child stopped on a signal after printing `message`: how a test checks a trap
/// (a precondition failure, an impossible event of a state machine), which cannot be observed in-process. Linux
/// only: on Apple platforms the tests run inside the `xctest` host, so the test is skipped there.
///
/// ```swift
/// func testAStrayIndexTraps() throws {
///     if isCrashChild { return trappingAction() }
///     try assertPreconditionFailure(inTest: "UntangleTests.MyTests/testAStrayIndexTraps", message: "My: index 5")
/// }
/// ```
package func assertPreconditionFailure(
    inTest test: String,
    message: String,
    file: StaticString = #filePath,
    line: UInt = #line
) throws {
    #if os(Linux)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [test]
        var environment = ProcessInfo.processInfo.environment
        environment["UNTANGLE_CRASH_CHILD"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Watchdog: a child that hangs instead of crashing is killed, and then fails the checks below.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue(label: "crash-watchdog").asyncAfter(deadline: .now() + 60, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(
            process.terminationReason, .uncaughtSignal, "the child did not crash:\n\(text)", file: file, line: line)
        XCTAssertNotEqual(
            process.terminationStatus, SIGTERM, "the child hung and was killed by the watchdog", file: file, line: line)
        XCTAssertTrue(
            text.contains(message), "the crash message is missing; child output:\n\(text)", file: file, line: line)
    #else
        throw XCTSkip("crash tests run the test binary as a child process, which is set up for Linux only")
    #endif
}
