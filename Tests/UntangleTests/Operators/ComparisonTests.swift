import Untangle
import XCTest

private struct Item: Equatable {
    let key: Int
    let tag: String
}

final class ComparisonTests: XCTestCase {
    func testMinAndMax() {
        let min = Recorder<Int, Never>()
        [3, 1, 2].publisher.eraseToAnyPublisher().min().subscribe(min)
        XCTAssertEqual(min.events, [.subscription("Comparison"), .value(1), .completion(.finished)])
        let max = Recorder<Int, Never>()
        [0, 10, 5].publisher.eraseToAnyPublisher().max().subscribe(max)
        XCTAssertEqual(max.events, [.subscription("Comparison"), .value(10), .completion(.finished)])
    }

    func testOfEqualElementsTheFirstWins() {
        let items = [Item(key: 1, tag: "a"), Item(key: 0, tag: "b"), Item(key: 1, tag: "c"), Item(key: 0, tag: "d")]
        let max = Recorder<Item, Never>()
        items.publisher.max { $0.key < $1.key }.subscribe(max)
        XCTAssertEqual(max.values, [Item(key: 1, tag: "a")])
        let min = Recorder<Item, Never>()
        items.publisher.min { $0.key < $1.key }.subscribe(min)
        XCTAssertEqual(min.values, [Item(key: 0, tag: "b")])
    }

    func testDemandEmptyAndFailure() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.max().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "asked at subscription")
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(recorder.events, [.subscription("Comparison"), .completion(.failure(TestError()))])
        let empty = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().min().subscribe(empty)
        XCTAssertEqual(empty.events, [.subscription("Comparison")], "a bare finish waits for demand too")
        empty.request(.max(1))
        XCTAssertEqual(empty.events, [.subscription("Comparison"), .completion(.finished)])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.min()) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testCancelInsideTheResultGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.max()) {
            upstream.send(3)
            upstream.send(1)
            upstream.send(completion: .finished)
        }
        XCTAssertEqual(recorder.events, [.subscription("Comparison"), .value(3)])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }
}

final class TryComparisonTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .max(1))
        upstream.tryMax { a, b in
            if b == 0 { throw TestError(0) }
            return a < b
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(0)
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(describe(recorder), ["subscription(TryComparison)", "failure(TestError(0))"])
    }

    func testTryMinTryMaxAndUpstreamFailure() {
        let min = Recorder<Int, Error>()
        [3, 1, 2].publisher.tryMin { $0 < $1 }.subscribe(min)
        XCTAssertEqual(describe(min), ["subscription(TryComparison)", "value(1)", "finished"])
        let max = Recorder<Int, Error>()
        [3, 1, 2].publisher.tryMax { $0 < $1 }.subscribe(max)
        XCTAssertEqual(describe(max), ["subscription(TryComparison)", "value(3)", "finished"])
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(2)).tryMin { $0 < $1 }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(2))
    }
}
