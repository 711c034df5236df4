import Untangle
import XCTest

final class ScanTests: XCTestCase {
    func testEmitsEachPartialResultWithDemandPassedThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { _, _ in .max(1) }
        upstream.scan(0, +).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.send(1), .max(1))
        upstream.send(2)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(
            recorder.events,
            [.subscription("ManualSubscription"), .value(1), .value(3), .completion(.failure(TestError()))],
            "scan is transparent, as in Combine: the subscriber holds the upstream's own subscription")
    }

    func testEachSubscriptionStartsFromTheInitialResult() {
        let scan = (1...3).publisher.eraseToAnyPublisher().scan(10, +)
        let a = Recorder<Int, Never>()
        let b = Recorder<Int, Never>(initialDemand: .max(1))
        scan.subscribe(a)
        scan.subscribe(b)
        XCTAssertEqual(a.values, [11, 13, 16])
        XCTAssertEqual(b.values, [11])
        b.request(.unlimited)
        XCTAssertEqual(
            b.events, [.subscription("1...3"), .value(11), .value(13), .value(16), .completion(.finished)])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(sinkIsReleased(upstream.scan(0, +), cancel: true))
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class TryScanTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .unlimited)
        upstream.tryScan(10) { total, next in
            if next == 0 { throw TestError(0) }
            return total / next
        }.subscribe(recorder)
        upstream.send(2)
        upstream.send(0)
        upstream.send(1)
        XCTAssertEqual(describe(recorder), ["subscription(TryScan)", "value(5)", "failure(TestError(0))"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testUpstreamFailure() {
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(3)).tryScan(0, +).subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(3))
    }

    // As in Combine: the tryScan subscription shows its downstream, its status and the current result.
    func testTryScanMirrorShowsTheDownstreamTheStatusAndTheCurrentResult() throws {
        let upstream = UnsubscribedUpstream<Int, Error>()
        let recorder = Recorder<Int, Error>()
        upstream.tryScan(10, +).subscribe(recorder)
        let subscriber = try XCTUnwrap(try XCTUnwrap(upstream.operatorSubscriber) as? CustomReflectable)
        func children() -> [String] {
            subscriber.customMirror.children.map { "\($0.label ?? "?")" }
        }
        func result() -> Int? {
            subscriber.customMirror.children.first { $0.label == "result" }?.value as? Int
        }
        XCTAssertEqual(children(), ["downstream", "status", "result"])
        XCTAssertEqual(result(), 10)
        upstream.send(subscription: LoggingUpstreamSubscription())
        XCTAssertEqual(upstream.send(5), .none)
        XCTAssertEqual(result(), 15)
        XCTAssertEqual(recorder.values, [15])
        XCTAssertEqual(String(describing: subscriber), "TryScan")
    }
}
