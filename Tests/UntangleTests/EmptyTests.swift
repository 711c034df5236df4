import Untangle
import XCTest

final class EmptyTests: XCTestCase {
    func testFinishesAtSubscriptionWithoutDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Empty<Int, TestError>().subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.finished)])
    }

    func testFinishesTheSameWayWithAnyDemand() {
        for demand in [Subscribers.Demand.max(1), .unlimited] {
            let recorder = Recorder<Int, Never>(initialDemand: demand)
            Empty<Int, Never>().subscribe(recorder)
            XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.finished)], "\(demand)")
        }
    }

    func testNotCompletingImmediatelySendsOnlyTheSubscription() {
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        Empty<Int, Never>(completeImmediately: false).subscribe(recorder)
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Empty")])
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("Empty")])
    }

    func testTheSubscriptionIsSubscriptionsEmpty() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().subscribe(recorder)
        XCTAssertEqual(recorder.subscription?.combineIdentifier, Subscriptions.empty.combineIdentifier)
        XCTAssertEqual(String(describing: Subscriptions.empty), "Empty")
    }

    func testTypedInitializerAndEquatable() {
        let typed = Empty(completeImmediately: false, outputType: String.self, failureType: TestError.self)
        XCTAssertFalse(typed.completeImmediately)
        XCTAssertTrue(Empty<String, TestError>().completeImmediately)
        XCTAssertEqual(typed, Empty<String, TestError>(completeImmediately: false))
        XCTAssertNotEqual(typed, Empty<String, TestError>())
    }

    func testSubscriberIsNotRetained() {
        assertSubscriptionReleasesSubscriber(Empty<Int, Never>())
        assertSubscriptionReleasesSubscriber(Empty<Int, Never>(completeImmediately: false))
    }
}
