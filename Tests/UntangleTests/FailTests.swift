import Untangle
import XCTest

final class FailTests: XCTestCase {
    func testFailsAtSubscriptionWithoutDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Fail<Int, TestError>(error: TestError(3)).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.failure(TestError(3)))])
    }

    func testFailsTheSameWayWithAnyDemand() {
        for demand in [Subscribers.Demand.max(1), .unlimited] {
            let recorder = Recorder<Int, TestError>(initialDemand: demand)
            Fail<Int, TestError>(error: TestError(3)).subscribe(recorder)
            XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.failure(TestError(3)))], "\(demand)")
        }
    }

    func testRequestsAndCancelAfterTheFailureDoNothing() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Fail<Int, TestError>(error: TestError(3)).subscribe(recorder)
        recorder.request(.max(1))
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.failure(TestError(3)))])
    }

    func testEverySubscriberGetsTheFailure() {
        let fail = Fail<Int, TestError>(error: TestError(4))
        let first = Recorder<Int, TestError>()
        let second = Recorder<Int, TestError>()
        fail.subscribe(first)
        fail.subscribe(second)
        XCTAssertEqual(first.completions, [.failure(TestError(4))])
        XCTAssertEqual(second.completions, [.failure(TestError(4))])
    }

    func testTypedInitializerAndEquatable() {
        let typed = Fail(outputType: String.self, failure: TestError(2))
        XCTAssertEqual(typed.error, TestError(2))
        XCTAssertEqual(typed, Fail<String, TestError>(error: TestError(2)))
        XCTAssertNotEqual(typed, Fail<String, TestError>(error: TestError(1)))
    }

    func testSubscriberIsNotRetained() {
        assertSubscriptionReleasesSubscriber(Fail<Int, TestError>(error: TestError()))
    }
}
