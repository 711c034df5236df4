import Untangle
import XCTest

final class CompactMapTests: XCTestCase {
    func testNilResultsAskUpstreamForOneMore() {
        let upstream = ManualPublisher<String, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        upstream.compactMap { Int($0) }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.send("x"), .max(1))
        XCTAssertEqual(upstream.send("2"), .none)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(
            recorder.events, [.subscription("ManualSubscription"), .value(2), .completion(.failure(TestError()))],
            "compactMap is transparent, as in Combine: the subscriber holds the upstream's own subscription")
    }

    func testExactDemandOverASequenceAndLaterRequest() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        ["1", "a", "2", "b", "3"].publisher.eraseToAnyPublisher().compactMap { Int($0) }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [1, 2])
        recorder.request(.unlimited)
        XCTAssertEqual(
            recorder.events,
            [.subscription(#"["1", "a", "2", "b", "3"]"#), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testFusionsKeepOneStage() {
        let fused: Publishers.CompactMap<Publishers.Sequence<[String], Never>, String> = ["1", "x", "20"].publisher
            .compactMap { Int($0) }
            .compactMap { $0 > 5 ? $0 : nil }
            .map { "#\($0)" }
        let recorder = Recorder<String, Never>()
        fused.subscribe(recorder)
        XCTAssertEqual(recorder.values, ["#20"])
    }

    func testCancelGoesStraightToTheUpstreamSubscriptionAndReleases() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.compactMap { $0 }.subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        upstream.send(1)
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel, .cancel], "no stage of its own in between")
        XCTAssertEqual(recorder.events.count, 1)
        XCTAssertTrue(sinkIsReleased(upstream.compactMap { $0 }, cancel: true))
    }
}

final class TryCompactMapTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<String, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .unlimited)
        upstream.tryCompactMap { text -> Int? in
            if text.isEmpty { throw TestError(7) }
            return Int(text)
        }.subscribe(recorder)
        XCTAssertEqual(upstream.send("x"), .max(1))
        upstream.send("1")
        upstream.send("")
        upstream.send("2")
        upstream.send(completion: .finished)
        XCTAssertEqual(describe(recorder), ["subscription(TryCompactMap)", "value(1)", "failure(TestError(7))"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testFusionAndUpstreamFailure() {
        let fused: Publishers.TryCompactMap<Publishers.Sequence<[Int], Never>, String> = [1, 2, 3].publisher
            .tryCompactMap { $0 == 2 ? nil : $0 }
            .compactMap { "\($0)" }
        let recorder = Recorder<String, Error>()
        fused.subscribe(recorder)
        XCTAssertEqual(describe(recorder), ["subscription(TryCompactMap)", "value(1)", "value(3)", "finished"])
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(2)).tryCompactMap { $0 }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(2))
    }
}
