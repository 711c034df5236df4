import Untangle
import XCTest

final class RemoveDuplicatesTests: XCTestCase {
    func testDuplicatesAreDroppedAndReplacedByARequest() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.removeDuplicates().subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(upstream.send(2), .none)
        upstream.send(completion: .finished)
        XCTAssertEqual(
            recorder.events, [.subscription("RemoveDuplicates"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(2))])
    }

    func testComparesWithThePreviousElementReceived() {
        let recorder = Recorder<Int, Never>()
        [1, 2, 3, 10, 11].publisher.removeDuplicates { $1 - $0 == 1 }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 10], "2 and 3 each follow their predecessor, published or not")
        let again = Recorder<Int, Never>()
        [1, 1, 2, 2, 1].publisher.removeDuplicates().subscribe(again)
        XCTAssertEqual(again.values, [1, 2, 1])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(sinkIsReleased(upstream.removeDuplicates(), cancel: true))
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class TryRemoveDuplicatesTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .max(3))
        upstream.tryRemoveDuplicates { previous, next in
            if next < 0 { throw TestError(next) }
            return previous == next
        }.subscribe(recorder)
        upstream.send(1)
        XCTAssertEqual(upstream.send(1), .max(1))
        upstream.send(-1)
        upstream.send(2)
        XCTAssertEqual(describe(recorder), ["subscription(TryRemoveDuplicates)", "value(1)", "failure(TestError(-1))"])
        XCTAssertEqual(upstream.history, [.request(.max(3)), .cancel])
    }

    func testUpstreamFailure() {
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(3)).tryRemoveDuplicates { _, _ in false }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(3))
    }
}
