import Untangle
import XCTest

final class ReplaceEmptyTests: XCTestCase {
    func testAsksUpstreamForExactlyTheSubscribersDemand() {
        // Combine's also asks for .unlimited and then delivers values nobody asked for: the contract's exact demand
        // wins (ThreadSafety.md).
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2)) { _, _ in .max(1) }
        upstream.replaceEmpty(with: 0).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        XCTAssertEqual(upstream.send(5), .max(1), "the subscriber's demand goes back upstream")
        recorder.request(.max(7))
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(7))])
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("ReplaceEmpty"), .value(5), .completion(.finished)])
    }

    func testEmptyUpstreamGetsTheReplacementWhenRequested() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.replaceEmpty(with: 42).subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("ReplaceEmpty")], "waits for demand")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("ReplaceEmpty"), .value(42), .completion(.finished)])
        XCTAssertEqual(upstream.history, [], "the upstream had completed: the request is not passed on")
    }

    func testValuesGoDownstreamWhateverItsDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.replaceEmpty(with: 0).subscribe(recorder)
        XCTAssertEqual(upstream.send(3), .none)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("ReplaceEmpty"), .value(3), .completion(.finished)])
    }

    func testFailureIsForwarded() {
        let recorder = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError()).replaceEmpty(with: 1).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("ReplaceEmpty"), .completion(.failure(TestError()))])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.replaceEmpty(with: 1)) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testEquatableWhenTheUpstreamAndOutputAre() {
        XCTAssertEqual(
            Just(1).replaceEmpty(with: 2) as Publishers.ReplaceEmpty<Just<Int>>, Just(1).replaceEmpty(with: 2))
        XCTAssertNotEqual(
            Just(1).replaceEmpty(with: 2) as Publishers.ReplaceEmpty<Just<Int>>, Just(1).replaceEmpty(with: 3))
    }

    func testCancelInsideTheReplacementGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.replaceEmpty(with: 9)) {
            upstream.send(completion: .finished)
        }
        XCTAssertEqual(recorder.events, [.subscription("ReplaceEmpty"), .value(9)])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }
}
