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
}

final class CollectByCountTests: XCTestCase {
    func testDemandIsMultipliedByCountBothWays() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: .max(2)) { _, _ in .max(1) }
        upstream.collect(3).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(6))])
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(upstream.send(2), .none)
        XCTAssertEqual(upstream.send(3), .max(3), "demand returned for an array becomes count elements upstream")
        recorder.request(.unlimited)
        XCTAssertEqual(upstream.history, [.request(.max(6)), .request(.unlimited)])
    }

    func testPartialArrayAtFinish() {
        let recorder = Recorder<[Int], Never>()
        (0...4).publisher.collect(2).subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("CollectByCount"), .value([0, 1]), .value([2, 3]), .value([4]), .completion(.finished)])
    }

    func testExactDemandOverASequence() {
        let recorder = Recorder<[Int], Never>(initialDemand: .max(1))
        (1...10).publisher.collect(4).subscribe(recorder)
        XCTAssertEqual(recorder.values, [[1, 2, 3, 4]])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [[1, 2, 3, 4], [5, 6, 7, 8]])
        XCTAssertEqual(recorder.completions, [])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testFailureDiscardsThePartialArray() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        upstream.collect(2).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(recorder.events, [.subscription("CollectByCount"), .completion(.failure(TestError(4)))])
    }

    func testCancelIsIdempotentAndReleasesTheSink() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: .max(1))
        upstream.collect(2).subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
        XCTAssertTrue(sinkIsReleased(upstream.collect(2), cancel: true))
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).collect(2), Just(1).collect(2))
        XCTAssertNotEqual(Just(1).collect(2), Just(1).collect(3))
    }
}
