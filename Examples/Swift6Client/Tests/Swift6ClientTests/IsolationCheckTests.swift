import Foundation
import XCTest

/// Runs the probe executable (built beside this test bundle) with `scenario` in a child process.
private func runProbe(_ scenario: String) throws -> (status: Int32, reason: Process.TerminationReason, output: String) {
    let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var probe = buildFolder.appendingPathComponent("Swift6ClientProbe")
    if !FileManager.default.fileExists(atPath: probe.path) {
        // Darwin: the test bundle is `.xctest/Contents/MacOS/...`; the probe is beside the bundle.
        probe = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("Swift6ClientProbe")
    }
    let process = Process()
    process.executableURL = probe
    process.arguments = [scenario]
    var environment = ProcessInfo.processInfo.environment
    // The crash report names the frames: Swift's isolation check under the client's closure.
    environment["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,color=no"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, process.terminationReason, String(decoding: data, as: UTF8.self))
}

/// Swift 6 + Untangle stops exactly where Swift 6 + Apple's Combine stops: a main-actor closure run off the main actor,
/// through the check the compiler put into the closure (Untangle, like Combine, is a Swift 5-mode module). `@Sendable`,
/// nonisolated and post-hop closures run.
final class IsolationCheckTests: XCTestCase {
    func testSafePatternsRunSilently() throws {
        let result = try runProbe("safe")
        XCTAssertEqual(result.reason, .exit, result.output)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("OK safe total=200 label=received 1"), result.output)
    }

    func testNonisolatedSubscriptionIsNotChecked() throws {
        let result = try runProbe("nonisolated")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("OK nonisolated total=200"), result.output)
    }

    func testSendableClosuresFormedOnTheMainActorRunOffIt() throws {
        let result = try runProbe("sendable")
        XCTAssertEqual(result.reason, .exit, result.output)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("OK sendable total=200 seen=200"), result.output)
    }

    func testMainActorSinkFedFromATaskGroupStops() throws {
        try assertStops("sink")
    }

    func testMainActorMapBeforeTheHopStops() throws {
        try assertStops("map")
    }

    func testCaptureFreeMainActorMapBeforeTheHopStops() throws {
        try assertStops("pureMap")
    }

    func testMainActorHandleEventsBeforeTheHopStops() throws {
        try assertStops("handleEvents")
    }

    func testMainActorCompactMapBeforeTheHopStops() throws {
        try assertStops("compactMap")
    }

    func testMainActorScanBeforeTheHopStops() throws {
        try assertStops("scan")
    }

    func testMainActorTryMapBeforeTheHopStops() throws {
        try assertStops("tryMap")
    }

    func testMainActorFlatMapLatestBeforeTheHopStops() throws {
        try assertStops("flatMapLatest")
    }

    func testMainActorWithLatestFromBeforeTheHopStops() throws {
        try assertStops("withLatestFrom")
    }

    /// The probe crashed (a signal, not an exit), in Swift's isolation check, called from the client's own closure in
    /// `UnsafeViewModel.init`: the compiler's check, not anything of Untangle's.
    private func assertStops(_ scenario: String, line: UInt = #line) throws {
        let result = try runProbe(scenario)
        XCTAssertEqual(result.reason, .uncaughtSignal, result.output, line: line)
        XCTAssertFalse(result.output.contains("NOT STOPPED"), result.output, line: line)
        let frames = result.output.components(separatedBy: "\n")
        guard let check = frames.firstIndex(where: { $0.contains("_swift_task_checkIsolatedSwift") }) else {
            return XCTFail("no _swift_task_checkIsolatedSwift frame in the crash report:\n\(result.output)", line: line)
        }
        let below = frames[check...].prefix(6)
        XCTAssertTrue(
            below.contains { $0.contains("closure") && $0.contains("UnsafeViewModel.init") },
            below.joined(separator: "\n"),
            line: line)
        XCTAssertFalse(result.output.contains("Untangle:"), result.output, line: line)
    }
}
