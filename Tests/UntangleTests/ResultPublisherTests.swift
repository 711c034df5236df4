import Untangle
import XCTest

final class ResultPublisherTests: XCTestCase {
    private typealias ResultPublisher = Result<Int, TestError>.Publisher

    func testSuccessWithoutDemandWaitsForARequest() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Result<Int, TestError>.success(5).publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Once")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Once"), .value(5), .completion(.finished)])
    }

    func testSuccessWithDemandOfOneAndUnlimited() {
        for demand in [Subscribers.Demand.max(1), .unlimited] {
            let recorder = Recorder<Int, TestError>(initialDemand: demand)
            ResultPublisher(5).subscribe(recorder)
            XCTAssertEqual(recorder.events, [.subscription("Once"), .value(5), .completion(.finished)], "\(demand)")
        }
    }

    func testFailureIsDeliveredAtSubscriptionWithoutDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        ResultPublisher(TestError(8)).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.failure(TestError(8)))])
    }

    func testDemandReturnedFromReceiveChangesNothing() {
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        ResultPublisher(5).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Once"), .value(5), .completion(.finished)])
    }

    func testCancelBeforeTheRequestDeliversNothing() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        ResultPublisher(5).subscribe(recorder)
        recorder.cancel()
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Once")])
    }

    func testCancelInsideReceiveSuppressesFinished() {
        let recorder = Recorder<Int, TestError>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                recorder.cancel()
                return .none
            })
        ResultPublisher(5).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Once"), .value(5)])
    }

    func testReentrantRequestDeliversNothingMore() {
        let recorder = Recorder<Int, TestError>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                recorder.request(.max(1))
                return .none
            })
        ResultPublisher(5).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Once"), .value(5), .completion(.finished)])
    }

    func testSubscriptionReleasesSubscriber() {
        assertSubscriptionReleasesSubscriber(ResultPublisher(1))
        assertSubscriptionReleasesSubscriber(ResultPublisher(1), initialDemand: nil) { $0.cancel() }
        assertSubscriptionReleasesSubscriber(ResultPublisher(TestError()))
    }

    func testInitializersAndEquatable() {
        XCTAssertEqual(ResultPublisher(5).result, .success(5))
        XCTAssertEqual(ResultPublisher(TestError(2)).result, .failure(TestError(2)))
        XCTAssertEqual(ResultPublisher(.success(5)), ResultPublisher(5))
        XCTAssertEqual(Result<Int, TestError>.failure(TestError(2)).publisher, ResultPublisher(TestError(2)))
        XCTAssertNotEqual(ResultPublisher(5), ResultPublisher(6))
    }

    // Combine names a successful result's subscription "Once".
    func testSubscriptionIsNamedOnceAndReflectsTheValue() throws {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Result<Int, TestError>.Publisher(5).subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Once")
        XCTAssertEqual(Mirror(reflecting: subscription).children.map { "\($0.value)" }, ["5"])
    }
}
