import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class HotTestPublisherTests: XCTestCase {
    func testPlaysOnceFromCreationAndLateSubscribersMissEarlierValues() {
        let scheduler = TestScheduler()
        let publisher = scheduler.createHotPublisher(
            [
                .value(0, at: .seconds(-1)), .value(1, at: .seconds(1)), .value(2, at: .seconds(3)),
                .finished(at: .seconds(4)),
            ] as [TimedEvent<Int, Never>])
        scheduler.advance(by: .seconds(2))
        let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
        publisher.subscribe(subscriber)
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(subscriber.events, [.subscription, .value(2), .completion(.finished)])
        XCTAssertEqual(publisher.subscriptions[0].subscribedAt, publisher.origin.advanced(by: .seconds(2)))
        let late = TestSubscriber<Int, Never>()
        publisher.subscribe(late)
        XCTAssertEqual(late.events, [.subscription])
        scheduler.advance()
        XCTAssertEqual(late.events, [.subscription, .completion(.finished)])
    }

    func testValuesWithoutDemandAreMissed() {
        let scheduler = TestScheduler()
        let publisher = scheduler.createHotPublisher(
            [.value(1, at: .seconds(1)), .value(2, at: .seconds(2)), .value(3, at: .seconds(3))]
                as [TimedEvent<Int, Never>])
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        publisher.subscribe(subscriber)
        scheduler.advance(by: .seconds(1))
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(subscriber.values, [2])
        XCTAssertEqual(subscriber.violations, [])
    }

    func testCancelReleasesTheSubscriberAndRecordsTheTime() {
        let scheduler = TestScheduler()
        let publisher = scheduler.createHotPublisher([.value(1, at: .seconds(2))] as [TimedEvent<Int, Never>])
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        var subscription: Subscription?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            publisher.subscribe(subscriber)
            subscription = subscriber.subscription
        }
        scheduler.advance(by: .seconds(1))
        subscription?.cancel()
        XCTAssertNil(weakSubscriber)
        XCTAssertEqual(publisher.subscriptions[0].cancelledAt, publisher.origin.advanced(by: .seconds(1)))
        scheduler.run()
    }
}
