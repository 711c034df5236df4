import Untangle
import XCTest

final class DropWhileTests: XCTestCase {
    func testDropsUntilThePredicateFailsThenPassesEverything() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        var calls = 0
        upstream.drop { value in
            calls += 1
            return value < 0
        }.subscribe(recorder)
        XCTAssertEqual(upstream.send(-1), .max(1), "a dropped value asks for one more")
        XCTAssertEqual(upstream.send(3), .none)
        XCTAssertEqual(upstream.send(-4), .none)
        upstream.send(completion: .finished)
        XCTAssertEqual(
            recorder.events, [.subscription("DropWhile"), .value(3), .value(-4), .completion(.finished)])
        XCTAssertEqual(calls, 2, "the predicate is not called once it returned false")
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(sinkIsReleased(upstream.drop { _ in true }, cancel: true))
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class TryDropWhileTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .unlimited)
        upstream.tryDrop { value in
            if value == 0 { throw TestError(0) }
            return value < 2
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(0)
        upstream.send(5)
        XCTAssertEqual(describe(recorder), ["subscription(TryDropWhile)", "failure(TestError(0))"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testPassesTheRestAndForwardsUpstreamFailure() {
        let recorder = Recorder<Int, Error>()
        [1, 3, 0].publisher.tryDrop { $0 < 2 }.subscribe(recorder)
        XCTAssertEqual(describe(recorder), ["subscription(TryDropWhile)", "value(3)", "value(0)", "finished"])
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(3)).tryDrop { _ in true }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(3))
    }
}
