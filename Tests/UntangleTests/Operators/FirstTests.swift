import Untangle
import XCTest

final class FirstTests: XCTestCase {
    func testFirstValueCancelsUpstreamThenIsDelivered() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        upstream.first().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.send(7), .none)
        upstream.send(8)
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("First"), .value(7), .completion(.finished)])
    }

    func testEmptyUpstreamsFinishWaitsForTheFirstRequest() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().first().subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("First")], "as in Combine, even a bare finish waits")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("First"), .completion(.finished)])
    }

    func testTheFirstValueWaitsForDemandWithTheUpstreamAlreadyCancelled() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.first().subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("First")])
        recorder.request(.unlimited)
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("First"), .value(1), .completion(.finished)])
    }

    func testOverASequenceAndFailure() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        (4...10).publisher.eraseToAnyPublisher().first().subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("First"), .value(4), .completion(.finished)])
        let failed = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError()).first().subscribe(failed)
        XCTAssertEqual(failed.events, [.subscription("First"), .completion(.failure(TestError()))])
    }

    func testCancelBeforeAValueAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.first()) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertTrue(recorderIsReleased(Just(1).first()) { _ in })
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).first(), Just(1).first())
    }

    func testCancelInsideTheFirstValueGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.first()) {
            upstream.send(4)
            upstream.send(5)
        }
        XCTAssertEqual(recorder.events, [.subscription("First"), .value(4)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class FirstWhereTests: XCTestCase {
    func testFirstMatchingValue() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.first { $0 > 2 }.subscribe(recorder)
        upstream.send(1)
        upstream.send(3)
        upstream.send(4)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(
            recorder.events, [.subscription("TryFirst"), .value(3), .completion(.finished)],
            "Combine's name for this subscription")
    }

    func testNoMatchFinishesEmpty() {
        let recorder = Recorder<Int, Never>()
        [1, 2].publisher.eraseToAnyPublisher().first { $0 > 2 }.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("TryFirst"), .completion(.finished)])
    }

    func testCancelInsideTheMatchingValueGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.first { $0 > 2 }) {
            upstream.send(1)
            upstream.send(3)
        }
        XCTAssertEqual(recorder.events, [.subscription("TryFirst"), .value(3)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class TryFirstWhereTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .max(1))
        upstream.tryFirst { value in
            if value < 0 { throw TestError(value) }
            return value > 5
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(-1)
        upstream.send(7)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(describe(recorder), ["subscription(TryFirstWhere)", "failure(TestError(-1))"])
    }

    func testMatchAndUpstreamFailure() {
        let recorder = Recorder<Int, Error>()
        [1, 6, 8].publisher.tryFirst { $0 > 5 }.subscribe(recorder)
        XCTAssertEqual(describe(recorder), ["subscription(TryFirstWhere)", "value(6)", "finished"])
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(3)).tryFirst { _ in true }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(3))
    }

    func testCancelInsideTheMatchingValueGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.tryFirst { $0 > 2 }) {
            upstream.send(1)
            upstream.send(3)
        }
        XCTAssertEqual(describe(recorder), ["subscription(TryFirstWhere)", "value(3)"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
