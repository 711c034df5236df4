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
    environment["SWIFT_BACKTRACE"] = "enable=no"  // a short stderr: the message, not a backtrace
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, process.terminationReason, String(decoding: data, as: UTF8.self))
}

final class IsolationCheckTests: XCTestCase {
    func testSafePatternsRunSilently() throws {
        let result = try runProbe("safe")
        XCTAssertEqual(result.reason, .exit, result.output)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("OK safe total=200 label=received 1"), result.output)
        XCTAssertFalse(result.output.contains("Untangle:"), result.output)
    }

    func testNonisolatedSubscriptionIsNotChecked() throws {
        let result = try runProbe("nonisolated")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("OK nonisolated total=200"), result.output)
    }

    func testIsolationNilOptsOut() throws {
        let result = try runProbe("optout")
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("OK optout total=200"), result.output)
    }

    func testMainActorSinkFedFromATaskGroupStops() throws {
        try assertStops("sink", naming: "`sink`")
    }

    func testMainActorMapBeforeTheHopStops() throws {
        try assertStops("map", naming: "`map`")
    }

    func testMainActorAssignFedFromATaskGroupStops() throws {
        try assertStops("assign", naming: "`assign(to:on:)`")
    }

    func testMainActorHandleEventsBeforeTheHopStops() throws {
        try assertStops("handleEvents", naming: "`handleEvents(receiveOutput:)`")
    }

    func testMainActorCompactMapBeforeTheHopStops() throws {
        try assertStops("compactMap", naming: "`compactMap`")
    }

    func testMainActorScanBeforeTheHopStops() throws {
        try assertStops("scan", naming: "`scan`")
    }

    func testMainActorTryMapBeforeTheHopStops() throws {
        try assertStops("tryMap", naming: "`tryMap`")
    }

    private func assertStops(_ scenario: String, naming operatorName: String, line: UInt = #line) throws {
        let result = try runProbe(scenario)
        XCTAssertEqual(result.reason, .uncaughtSignal, result.output, line: line)
        XCTAssertFalse(result.output.contains("NOT STOPPED"), result.output, line: line)
        XCTAssertTrue(
            result.output.contains("Untangle: the closure passed to \(operatorName) was formed on MainActor"),
            result.output, line: line)
        XCTAssertTrue(result.output.contains("`.receive(on: DispatchQueue.main)`"), result.output, line: line)
    }
}
