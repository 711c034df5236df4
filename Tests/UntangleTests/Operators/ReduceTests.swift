import Untangle
import XCTest

final class ReduceTests: XCTestCase {
    func testAsksUnlimitedAtSubscriptionAndKeepsRequestsToItself() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.reduce(0, +).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "asked before the downstream requested anything")
        recorder.request(.max(1))
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "downstream requests stay here")
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(upstream.send(2), .none)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Reduce"), .value(3), .completion(.finished)])
    }

    func testResultWaitsForDemandWhenTheUpstreamFinishesFirst() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().reduce(5, +).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Reduce")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Reduce"), .value(5), .completion(.finished)])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events.count, 3, "delivered once")
    }

    func testSynchronousUpstreamWithUnlimitedDemand() {
        let recorder = Recorder<String, Never>()
        ["a", "b", "c"].publisher.eraseToAnyPublisher().reduce("", +).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Reduce"), .value("abc"), .completion(.finished)])
    }

    func testFailureIsForwardedWithoutAResult() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.reduce(0, +).subscribe(recorder)
        upstream.send(completion: .failure(TestError(3)))
        XCTAssertEqual(
            recorder.events, [.subscription("Reduce"), .completion(.failure(TestError(3)))],
            "a completion needs no demand")
    }

    func testCancelBeforeCompletionCancelsUpstreamOnceAndDeliversNothing() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.reduce(0, +).subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("Reduce")])
    }

    func testCancelWhileTheResultWaitsDropsIt() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.reduce(0, +).subscribe(recorder)
        upstream.send(completion: .finished)
        recorder.cancel()
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Reduce")])
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "the upstream had completed: nothing to cancel")
    }

    func testCancelInsideTheResultGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.cancel()
            recorder.request(.max(1))
            return .none
        }
        upstream.reduce(0, +).subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Reduce"), .value(0)], "nothing after its own cancel")
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testReleasesTheSubscriberAfterCancelAndAfterCompletion() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.reduce(0, +)) { $0.cancel() })
        XCTAssertTrue(recorderIsReleased([1, 2].publisher.eraseToAnyPublisher().reduce(0, +)) { _ in })
    }
}

final class TryReduceTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .max(1))
        upstream.tryReduce(0) { total, next in
            if next < 0 { throw TestError(next) }
            return total + next
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(-2)
        upstream.send(3)
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(describe(recorder), ["subscription(TryReduce)", "failure(TestError(-2))"])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel], "cancel after the failure is a no-op")
    }

    func testResultAndUpstreamFailure() {
        let ok = Recorder<Int, Error>()
        [1, 2, 3].publisher.eraseToAnyPublisher().tryReduce(1, *).subscribe(ok)
        XCTAssertEqual(describe(ok), ["subscription(TryReduce)", "value(6)", "finished"])
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(9)).tryReduce(0, +).subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(9))
    }
}
