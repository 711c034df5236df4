import Untangle
import XCTest

final class CollectTests: XCTestCase {
    func testCollectsEverythingAndDeliversAtFinish() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<[Int], TestError>(initialDemand: .max(1))
        upstream.collect().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Collect"), .value([1, 2]), .completion(.finished)])
    }

    func testArrayWaitsForDemandAndFailureDiscardsIt() {
        let waiting = Recorder<[Int], Never>(initialDemand: nil)
        Empty<Int, Never>().collect().subscribe(waiting)
        XCTAssertEqual(waiting.events, [.subscription("Collect")])
        waiting.request(.max(1))
        XCTAssertEqual(waiting.events, [.subscription("Collect"), .value([]), .completion(.finished)])

        let upstream = ManualPublisher<Int, TestError>()
        let failed = Recorder<[Int], TestError>()
        upstream.collect().subscribe(failed)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(failed.events, [.subscription("Collect"), .completion(.failure(TestError()))])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.collect()) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertTrue(recorderIsReleased([1].publisher.eraseToAnyPublisher().collect()) { _ in })
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).collect(), Just(1).collect())
    }

    func testCancelInsideTheArrayGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.collect()) {
            upstream.send(1)
            upstream.send(completion: .finished)
        }
        XCTAssertEqual(recorder.events, [.subscription("Collect"), .value([1])])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }
}
