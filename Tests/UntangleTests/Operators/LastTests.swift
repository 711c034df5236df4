import Untangle
import XCTest

final class LastTests: XCTestCase {
    func testLastValueAtFinish() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        upstream.last().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        upstream.send(2)
        XCTAssertEqual(recorder.events, [.subscription("Last")])
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Last"), .value(2), .completion(.finished)])
    }

    func testValueWaitsForDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.last().subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Last")], "empty: the bare completion waits too")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Last"), .completion(.finished)])

        let waiting = Recorder<Int, Never>(initialDemand: nil)
        let values = ManualPublisher<Int, Never>()
        values.last().subscribe(waiting)
        values.send(4)  // (a ManualPublisher ignores demand: the value is only stored)
        values.send(completion: .finished)
        XCTAssertEqual(waiting.events, [.subscription("Last")])
        waiting.request(.max(1))
        XCTAssertEqual(waiting.events, [.subscription("Last"), .value(4), .completion(.finished)])
    }

    func testFailureDropsTheValue() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.last().subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(recorder.events, [.subscription("Last"), .completion(.failure(TestError()))])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.last()) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).last(), Just(1).last())
    }

    func testCancelInsideTheLastValueGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.last()) {
            upstream.send(1)
            upstream.send(2)
            upstream.send(completion: .finished)
        }
        XCTAssertEqual(recorder.events, [.subscription("Last"), .value(2)])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }
}

final class LastWhereTests: XCTestCase {
    func testLastMatchingValue() {
        let recorder = Recorder<Int, Never>()
        (1...10).publisher.eraseToAnyPublisher().last { $0 < 6 }.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("LastWhere"), .value(5), .completion(.finished)])
        let none = Recorder<Int, Never>()
        (1...3).publisher.eraseToAnyPublisher().last { $0 > 6 }.subscribe(none)
        XCTAssertEqual(none.events, [.subscription("LastWhere"), .completion(.finished)])
    }
}

final class TryLastWhereTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Error>(initialDemand: .max(1))
        upstream.tryLast { value in
            if value < 0 { throw TestError(value) }
            return true
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(-3)
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(describe(recorder), ["subscription(TryLastWhere)", "failure(TestError(-3))"])
    }

    func testMatchAndUpstreamFailure() {
        let recorder = Recorder<Int, Error>()
        [1, 6, 8, 2].publisher.tryLast { $0 > 5 }.subscribe(recorder)
        XCTAssertEqual(describe(recorder), ["subscription(TryLastWhere)", "value(8)", "finished"])
        let failed = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(3)).tryLast { _ in true }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(3))
    }
}
