import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class ColdTestPublisherTests: XCTestCase {
    let timeline: [TimedEvent<Int, Never>] = [
        .value(1, at: .seconds(1)), .value(2, at: .seconds(2)), .finished(at: .seconds(3)),
    ]

    func testReplaysTheTimelineFromEachSubscription() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        let publisher = scheduler.createColdPublisher(timeline)
        let first = TestSubscriber<Int, Never>(scheduler: scheduler)
        publisher.subscribe(first)
        scheduler.advance(by: .seconds(1))
        let second = TestSubscriber<Int, Never>(scheduler: scheduler)
        publisher.subscribe(second)
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(first.events, [.subscription, .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(second.events, first.events)
        XCTAssertEqual(
            first.records.dropFirst().map(\.time), [1, 2, 3].map { start.advanced(by: .seconds($0)) })
        XCTAssertEqual(
            second.records.dropFirst().map(\.time), [2, 3, 4].map { start.advanced(by: .seconds($0)) })
        XCTAssertEqual(publisher.subscriptions.map(\.subscribedAt), [start, start.advanced(by: .seconds(1))])
        XCTAssertEqual(publisher.subscriptions.map(\.events), [[.request(.unlimited)], [.request(.unlimited)]])
    }

    func testValuesWaitForDemandAndTheCompletionWaitsBehindThem() {
        let scheduler = TestScheduler()
        let publisher = scheduler.createColdPublisher(timeline)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none, scheduler: scheduler)
        publisher.subscribe(subscriber)
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(subscriber.events, [.subscription])
        subscriber.request(.max(1))
        scheduler.advance()
        XCTAssertEqual(subscriber.events, [.subscription, .value(1)])
        subscriber.request(.max(1))
        scheduler.advance()
        XCTAssertEqual(subscriber.events, [.subscription, .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(subscriber.violations, [])
    }

    func testCancelStopsDeliveryAndRecordsTheVirtualTime() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        let publisher = scheduler.createColdPublisher(timeline)
        let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
        publisher.subscribe(subscriber)
        scheduler.advance(by: .milliseconds(1_500))
        subscriber.cancel()
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(subscriber.events, [.subscription, .value(1)])
        XCTAssertEqual(publisher.subscriptions[0].cancelledAt, start.advanced(by: .milliseconds(1_500)))
        XCTAssertEqual(publisher.subscriptions[0].events, [.request(.unlimited), .cancel])
    }

    func testEventsAtTheSameOffsetKeepTheirOrder() {
        let scheduler = TestScheduler()
        let publisher = scheduler.createColdPublisher(
            [.value(3, at: .seconds(2)), .value(1, at: .seconds(1)), .value(2, at: .seconds(1))]
                as [TimedEvent<Int, Never>])
        let subscriber = TestSubscriber<Int, Never>()
        publisher.subscribe(subscriber)
        scheduler.run()
        XCTAssertEqual(subscriber.values, [1, 2, 3])
    }
}

final class ColdTestPublisherConcurrencyTests: XCTestCase {
    /// Requests and cancels from several threads while the scheduler delivers on another: deliveries never overlap
    /// and nothing arrives beyond demand.
    func testConcurrentRequestsWhileTheSchedulerDelivers() {
        let scheduler = TestScheduler()
        let timeline = (0..<2_000).map { TimedEvent<Int, Never>.value($0, at: .milliseconds($0)) }
        let publisher = scheduler.createColdPublisher(timeline)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        publisher.subscribe(subscriber)
        let finished = Concurrently.run(threads: 4) { thread in
            if thread == 0 {
                for _ in 0..<2_100 { scheduler.advance(by: .milliseconds(1)) }
            } else {
                for _ in 0..<300 { subscriber.request(.max(1)) }
            }
        }
        XCTAssertTrue(finished, "watchdog: deadlock?")
        scheduler.run()
        XCTAssertEqual(subscriber.values, Array(0..<900))
        XCTAssertEqual(subscriber.violations, [])
        XCTAssertEqual(subscriber.overlaps, 0)
    }
}
