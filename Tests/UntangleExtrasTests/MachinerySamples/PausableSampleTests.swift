import Untangle
import UntangleExtras
import XCTest

/// Machinery.md's trigger sample (`pausable(_:)`, Publishers.Pausable.swift beside this file) behaves as written:
/// values pass while the valve's latest value is true, and the skeleton does the rest (subscription order,
/// completions from either side, cancel).
final class PausableSampleTests: XCTestCase {
    func testValuesPassOnlyWhileTheValveIsOpenAndADroppedOneIsReplacedByARequest() {
        let upstream = ManualPublisher<Int, TestError>()
        let valve = ManualPublisher<Bool, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(5))
        upstream.pausable(valve).subscribe(recorder)
        XCTAssertEqual(valve.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.history, [.request(.max(5))], "the downstream's requests go straight upstream")
        XCTAssertEqual(upstream.send(1), .max(1), "closed until the valve's first value")
        valve.send(true)
        XCTAssertEqual(upstream.send(2), .none)
        valve.send(false)
        XCTAssertEqual(upstream.send(3), .max(1))
        valve.send(true)
        upstream.send(4)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.values, [2, 4])
        XCTAssertEqual(recorder.completions, [.finished])
        XCTAssertEqual(valve.history, [.request(.unlimited), .cancel], "the upstream's end cancels the valve")
    }

    func testTheValvesFailureFailsAndCancelsTheUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let valve = ManualPublisher<Bool, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.pausable(valve).subscribe(recorder)
        valve.send(completion: .failure(TestError(7)))
        upstream.send(1)
        XCTAssertEqual(recorder.completions, [.failure(TestError(7))])
        XCTAssertEqual(recorder.values, [])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testCancelCancelsBoth() {
        let upstream = ManualPublisher<Int, TestError>()
        let valve = ManualPublisher<Bool, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.pausable(valve).subscribe(recorder)
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(valve.history, [.request(.unlimited), .cancel])
    }
}
