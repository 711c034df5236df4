import Untangle
import XCTest

final class OptionalPublisherTests: XCTestCase {
    func testSomeWithoutDemandWaitsForARequest() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Optional(4).publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Optional")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Optional"), .value(4), .completion(.finished)])
    }

    func testSomeWithDemandOfOneAndUnlimited() {
        for demand in [Subscribers.Demand.max(1), .unlimited] {
            let recorder = Recorder<Int, Never>(initialDemand: demand)
            Optional(4).publisher.subscribe(recorder)
            XCTAssertEqual(
                recorder.events, [.subscription("Optional"), .value(4), .completion(.finished)], "\(demand)")
        }
    }

    func testNoneFinishesAtSubscriptionWithoutDemand() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Int?.none.publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.finished)])
    }

    func testDemandReturnedFromReceiveChangesNothing() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        Optional(4).publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Optional"), .value(4), .completion(.finished)])
    }

    func testCancelBeforeTheRequestDeliversNothing() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Optional(4).publisher.subscribe(recorder)
        recorder.cancel()
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Optional")])
    }

    func testCancelInsideReceiveSuppressesFinished() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                recorder.cancel()
                return .none
            })
        Optional(4).publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Optional"), .value(4)])
    }

    func testReentrantRequestAndRequestsAfterCompletionDeliverNothingMore() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                recorder.request(.max(1))
                return .none
            })
        Optional(4).publisher.subscribe(recorder)
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Optional"), .value(4), .completion(.finished)])
    }

    func testSubscriptionReleasesSubscriber() {
        assertSubscriptionReleasesSubscriber(Optional(1).publisher)
        assertSubscriptionReleasesSubscriber(Optional(1).publisher, initialDemand: nil) { $0.cancel() }
    }

    func testOutputAndEquatable() {
        XCTAssertEqual(Optional(4).publisher.output, 4)
        XCTAssertNil(Int?.none.publisher.output)
        XCTAssertEqual(Optional(4).publisher, Optional<Int>.Publisher(4))
        XCTAssertNotEqual(Optional(4).publisher, Int?.none.publisher)
    }

    func testSubscriptionIsNamedOptionalAndReflectsTheValue() throws {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Optional(4).publisher.subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Optional")
        XCTAssertEqual(Mirror(reflecting: subscription).children.map { "\($0.value)" }, ["4"])
    }
}
