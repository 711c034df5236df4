import Untangle
import XCTest

final class ContainsTests: XCTestCase {
    func testMatchCancelsUpstreamAndAnswersTrue() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Bool, Never>(initialDemand: .max(1))
        upstream.contains(2).subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("Contains"), .value(true), .completion(.finished)])
    }

    func testNoMatchAnswersFalseWhenRequested() {
        let recorder = Recorder<Bool, Never>(initialDemand: nil)
        Empty<Int, Never>().contains(2).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Contains")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Contains"), .value(false), .completion(.finished)])
    }

    func testFailureCancelAndRelease() {
        let failed = Recorder<Bool, TestError>()
        Fail<Int, TestError>(error: TestError()).contains(1).subscribe(failed)
        XCTAssertEqual(failed.events, [.subscription("Contains"), .completion(.failure(TestError()))])
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.contains(1)) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).contains(1), Just(1).contains(1))
        XCTAssertNotEqual(Just(1).contains(1), Just(1).contains(2))
    }

    func testCancelInsideTheAnswerGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.contains(2)) {
            upstream.send(1)
            upstream.send(2)
        }
        XCTAssertEqual(recorder.events, [.subscription("Contains"), .value(true)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class ContainsWhereTests: XCTestCase {
    func testPredicate() {
        let yes = Recorder<Bool, Never>()
        [1, 3, 8].publisher.eraseToAnyPublisher().contains { $0.isMultiple(of: 2) }.subscribe(yes)
        XCTAssertEqual(yes.events, [.subscription("ContainsWhere"), .value(true), .completion(.finished)])
        let no = Recorder<Bool, Never>()
        [1, 3].publisher.contains { $0.isMultiple(of: 2) }.subscribe(no)
        XCTAssertEqual(no.values, [false])
    }

    func testCancelInsideTheAnswerGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.contains { $0 > 1 }) {
            upstream.send(1)
            upstream.send(2)
        }
        XCTAssertEqual(recorder.events, [.subscription("ContainsWhere"), .value(true)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class TryContainsWhereTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Bool, Error>(initialDemand: .max(1))
        upstream.tryContains { value in
            if value < 0 { throw TestError(value) }
            return value > 5
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(-1)
        upstream.send(6)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(describe(recorder), ["subscription(TryContainsWhere)", "failure(TestError(-1))"])
    }

    func testAnswersAndUpstreamFailure() {
        let yes = Recorder<Bool, Error>()
        [1, 6].publisher.eraseToAnyPublisher().tryContains { $0 > 5 }.subscribe(yes)
        XCTAssertEqual(describe(yes), ["subscription(TryContainsWhere)", "value(true)", "finished"])
        let no = Recorder<Bool, Error>()
        [1].publisher.eraseToAnyPublisher().tryContains { $0 > 5 }.subscribe(no)
        XCTAssertEqual(describe(no), ["subscription(TryContainsWhere)", "value(false)", "finished"])
        let failed = Recorder<Bool, Error>()
        Fail<Int, TestError>(error: TestError(4)).tryContains { _ in true }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(4))
    }

    func testCancelInsideTheAnswerGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.tryContains { $0 > 1 }) {
            upstream.send(1)
            upstream.send(2)
        }
        XCTAssertEqual(describe(recorder), ["subscription(TryContainsWhere)", "value(true)"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
