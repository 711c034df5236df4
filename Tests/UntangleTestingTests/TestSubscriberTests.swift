import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class TestSubscriberTests: XCTestCase {
    func testRecordsTheFullHistoryWithUnlimitedDemand() {
        let subscriber = TestSubscriber<Int, Never>()
        [1, 2, 3].publisher.subscribe(subscriber)
        XCTAssertEqual(subscriber.events, [.subscription, .value(1), .value(2), .value(3), .completion(.finished)])
        XCTAssertEqual(subscriber.values, [1, 2, 3])
        XCTAssertEqual(subscriber.completion, .finished)
        XCTAssertTrue(subscriber.isCompleted)
        XCTAssertEqual(subscriber.violations, [])
        XCTAssertEqual(subscriber.requested, .unlimited)
    }

    func testInitialDemandThenLaterRequest() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2, 3].publisher.subscribe(subscriber)
        XCTAssertEqual(subscriber.events, [.subscription, .value(1)])
        subscriber.request(.max(2))
        XCTAssertEqual(subscriber.values, [1, 2, 3])
        XCTAssertEqual(subscriber.requested, .max(3))
        XCTAssertEqual(subscriber.violations, [])
    }

    func testDemandPerValueAndOnValueDecideTheReturnedDemand() {
        let perValue = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        (1...5).publisher.subscribe(perValue)
        XCTAssertEqual(perValue.values, [1, 2, 3, 4, 5])
        XCTAssertTrue(perValue.isCompleted)

        let untilThree = TestSubscriber<Int, Never>(initialDemand: .max(1)) { _, value in value < 3 ? .max(1) : .none }
        (1...5).publisher.subscribe(untilThree)
        XCTAssertEqual(untilThree.values, [1, 2, 3])
        XCTAssertFalse(untilThree.isCompleted)
    }

    func testRequestBeforeTheSubscriptionIsKeptAndPassedOn() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subscriber.request(.max(2))
        let upstream = TestPublisher<Int, Never>()
        upstream.subscribe(subscriber)
        XCTAssertEqual(upstream.subscriptions.map(\.events), [[.request(.max(2))]])
    }

    func testCancelFromInsideReceiveStopsASynchronousSource() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .unlimited) { subscriber, value in
            if value == 2 { subscriber.cancel() }
            return .none
        }
        (1...100).publisher.subscribe(subscriber)
        XCTAssertEqual(subscriber.events, [.subscription, .value(1), .value(2)])
    }

    func testRecordsThreadsAndVirtualTime() {
        let scheduler = TestScheduler()
        let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
        let subject = PassthroughSubject<Int, Never>()
        subject.subscribe(subscriber)
        scheduler.advance(by: .seconds(3))
        subject.send(1)
        // The sender's own view of itself, taken just before it sends. (Not a fixed "sender" name: on Linux,
        // swift-corelibs-foundation does not always report a name set through `Thread.current.name` back from
        // another `Thread.current` on a thread it did not create; CI saw it return the process name once.)
        let sender = LockedBox<RecordedThread?>(nil)
        let finished = Concurrently.watchdog {
            Thread.current.name = "sender"
            sender.withLock { $0 = RecordedThread.current }
            subject.send(2)
        }
        XCTAssertTrue(finished)
        let records = subscriber.records
        XCTAssertEqual(records.count, 3)
        XCTAssertEqual(records[1].time, scheduler.now)
        XCTAssertEqual(records[1].thread, RecordedThread.current)
        XCTAssertNotEqual(records[2].thread, RecordedThread.current)
        XCTAssertEqual(records[2].thread.number, sender.withLock { $0?.number })
        XCTAssertEqual(subscriber.threads.count, 2)
    }

    func testThreadNumbersAreStablePerThread() {
        XCTAssertEqual(RecordedThread.current.number, RecordedThread.current.number)
        let other = LockedBox<RecordedThread?>(nil)
        XCTAssertTrue(Concurrently.watchdog { other.withLock { $0 = RecordedThread.current } })
        XCTAssertNotEqual(other.withLock { $0 }, RecordedThread.current)
    }

    func testDiffNamesTheFirstDifferenceAndBothHistories() {
        let subscriber = TestSubscriber<Int, TestFailure>()
        Record<Int, TestFailure>(output: [1], completion: .failure(TestFailure(code: 7))).subscribe(subscriber)
        XCTAssertNil(subscriber.diff(from: [.subscription, .value(1), .completion(.failure(TestFailure(code: 7)))]))
        let diff = subscriber.diff(from: [.subscription, .value(2), .completion(.finished)])
        XCTAssertEqual(
            diff,
            """
            event histories differ at index 1:
              at [1]: expected value(2), got value(1)
              expected: [subscription, value(2), finished]
              actual:   [subscription, value(1), failure(TestFailure(7))]
            """)
        var reported: [String] = []
        subscriber.assertEvents([.subscription]) { reported.append($0) }
        XCTAssertEqual(reported.count, 1)
        XCTAssertTrue(reported[0].contains("at [1]: expected (nothing), got value(1)"), reported[0])
    }

    func testDescriptionDiffWorksForErrorFailures() {
        let subscriber = TestSubscriber<Int, Error>()
        Fail<Int, Error>(error: TestFailure()).subscribe(subscriber)
        XCTAssertNil(subscriber.diff(fromDescriptions: ["subscription", "failure(TestFailure(1))"]))
        var reported: [String] = []
        subscriber.assertDescriptions(["subscription", "finished"]) { reported.append($0) }
        XCTAssertEqual(reported.count, 1)
    }

    func testNoticesValuesBeyondDemandAndAfterCompletion() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        XCTAssertEqual(subscriber.violations, ["value #2 arrived beyond demand: only max(1) requested in total"])
        var reported: String?
        subscriber.assertNoViolations { reported = $0 }
        XCTAssertEqual(
            reported,
            "the publisher broke the contract:\n  - value #2 arrived beyond demand: only max(1) requested in total")
    }

    func testNoticesSignalsAfterCompletionAndASecondSubscription() {
        let subscriber = TestSubscriber<Int, Never>()
        let bad = AnyPublisher<Int, Never>(BadPublisher())
        bad.subscribe(subscriber)
        XCTAssertEqual(
            subscriber.violations,
            [
                "value #1 arrived after the completion",
                "a second receive(completion:) (finished)",
                "a second receive(subscription:) (the extra subscription was cancelled)",
            ])
    }

    func testReentrantDeliveryIsVisibleAsDepth() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .unlimited) { _, value in
            if value == 1 { upstream.send(2) }
            return .none
        }
        upstream.subscribe(subscriber)
        upstream.send(1)
        XCTAssertEqual(subscriber.records.map(\.depth), [1, 1, 2])
        XCTAssertEqual(subscriber.maximumDepth, 2)
    }

    func testWaitTimesOutWithoutHanging() {
        let subscriber = TestSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().subscribe(subscriber)
        XCTAssertFalse(subscriber.waitForValues(1, timeout: 0.05))
        XCTAssertFalse(subscriber.waitForCompletion(timeout: 0.05))
    }
}

/// Sends a completion, a value after it, a second completion and a second subscription.
private struct BadPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
        _ = subscriber.receive(1)
        subscriber.receive(completion: .finished)
        subscriber.receive(subscription: Subscriptions.empty)
    }
}
