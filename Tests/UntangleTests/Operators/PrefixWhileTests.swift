import Untangle
import XCTest

final class PrefixWhileTests: XCTestCase {
    func testFirstFailingValueCancelsUpstreamAndFinishes() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(5))
        upstream.prefix { $0 < 3 }.subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(1)
        upstream.send(completion: .finished)
        XCTAssertEqual(
            recorder.events, [.subscription("PrefixWhile"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(5)), .cancel])
    }

    func testDemandPassesThroughAndCancelReleases() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        (1...10).publisher.eraseToAnyPublisher().prefix { $0 < 4 }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.unlimited)
        XCTAssertEqual(
            recorder.events, [.subscription("PrefixWhile"), .value(1), .value(2), .value(3), .completion(.finished)])
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(sinkIsReleased(upstream.prefix { _ in true }, cancel: true))
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class TryPrefixWhileTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .unlimited)
        upstream.tryPrefix { value in
            if value < 0 { throw TestError(value) }
            return true
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(-1)
        upstream.send(2)
        XCTAssertEqual(describe(recorder), ["subscription(TryPrefixWhile)", "value(1)", "failure(TestError(-1))"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testFalseFinishesAndUpstreamFailureIsForwarded() {
        let recorder = Recorder<Int, Error>()
        [1, 5, 2].publisher.tryPrefix { $0 < 3 }.subscribe(recorder)
        XCTAssertEqual(describe(recorder), ["subscription(TryPrefixWhile)", "value(1)", "finished"])
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(3)).tryPrefix { _ in true }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(3))
    }
}
