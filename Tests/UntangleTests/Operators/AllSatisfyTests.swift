import Untangle
import XCTest

final class AllSatisfyTests: XCTestCase {
    func testFirstFailingElementCancelsUpstreamAndAnswersFalse() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Bool, Never>(initialDemand: .max(1))
        upstream.allSatisfy { $0 > 0 }.subscribe(recorder)
        upstream.send(1)
        upstream.send(0)
        upstream.send(2)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(recorder.events, [.subscription("AllSatisfy"), .value(false), .completion(.finished)])
    }

    func testTrueWaitsForDemand() {
        let recorder = Recorder<Bool, Never>(initialDemand: nil)
        Empty<Int, Never>().allSatisfy { $0 > 0 }.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("AllSatisfy")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("AllSatisfy"), .value(true), .completion(.finished)])
    }

    func testFailureCancelAndRelease() {
        let failed = Recorder<Bool, TestError>()
        Fail<Int, TestError>(error: TestError()).allSatisfy { _ in true }.subscribe(failed)
        XCTAssertEqual(failed.events, [.subscription("AllSatisfy"), .completion(.failure(TestError()))])
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.allSatisfy { _ in true }) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testCancelInsideTheAnswerGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.allSatisfy { $0 < 2 }) {
            upstream.send(1)
            upstream.send(2)
        }
        XCTAssertEqual(recorder.events, [.subscription("AllSatisfy"), .value(false)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class TryAllSatisfyTests: XCTestCase {
    func testThrowCancelsUpstreamOnceAndFails() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Bool, Error>(initialDemand: .max(1))
        upstream.tryAllSatisfy { value in
            if value < 0 { throw TestError(value) }
            return true
        }.subscribe(recorder)
        upstream.send(1)
        upstream.send(-2)
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(describe(recorder), ["subscription(TryAllSatisfy)", "failure(TestError(-2))"])
    }

    func testAnswersAndUpstreamFailure() {
        let yes = Recorder<Bool, Error>()
        [1, 2].publisher.eraseToAnyPublisher().tryAllSatisfy { $0 > 0 }.subscribe(yes)
        XCTAssertEqual(describe(yes), ["subscription(TryAllSatisfy)", "value(true)", "finished"])
        let no = Recorder<Bool, Error>()
        [1, 0].publisher.eraseToAnyPublisher().tryAllSatisfy { $0 > 0 }.subscribe(no)
        XCTAssertEqual(describe(no), ["subscription(TryAllSatisfy)", "value(false)", "finished"])
        let failed = Recorder<Bool, Error>()
        Fail<Int, TestError>(error: TestError(4)).tryAllSatisfy { _ in true }.subscribe(failed)
        XCTAssertEqual(thrownError(failed), TestError(4))
    }

    func testCancelInsideTheAnswerGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = recorderCancellingInsideEachValue(upstream.tryAllSatisfy { $0 < 2 }) {
            upstream.send(1)
            upstream.send(2)
        }
        XCTAssertEqual(describe(recorder), ["subscription(TryAllSatisfy)", "value(false)"])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
