import Untangle
import XCTest

final class CountTests: XCTestCase {
    func testCountsAfterTheFirstRequest() {
        let upstream = ManualPublisher<String, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        upstream.count().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send("a")
        upstream.send("b")
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Count"), .value(2), .completion(.finished)])
    }

    func testZeroIsDeliveredOnRequestAfterAnEmptyUpstreamFinished() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().count().subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Count")])
        recorder.request(.max(3))
        XCTAssertEqual(recorder.events, [.subscription("Count"), .value(0), .completion(.finished)])
    }

    func testFailureAndCancel() {
        let failing = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(2)).count().subscribe(failing)
        XCTAssertEqual(failing.events, [.subscription("Count"), .completion(.failure(TestError(2)))])
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.count()) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).count() as Publishers.Count<Just<Int>>, Just(1).count())
        XCTAssertNotEqual(Just(1).count() as Publishers.Count<Just<Int>>, Just(2).count())
    }

    func testCancelInsideTheCountGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.count()) {
            upstream.send(1)
            upstream.send(completion: .finished)
        }
        XCTAssertEqual(recorder.events, [.subscription("Count"), .value(1)])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }
}
