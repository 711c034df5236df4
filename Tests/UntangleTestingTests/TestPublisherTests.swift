import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class TestPublisherTests: XCTestCase {
    func testRecordsEveryRequestAndCancelPerSubscription() {
        let upstream = TestPublisher<Int, Never>()
        let first = TestSubscriber<Int, Never>(initialDemand: .max(1))
        let second = TestSubscriber<Int, Never>(initialDemand: .unlimited)
        upstream.map { $0 * 2 }.subscribe(first)
        upstream.subscribe(second)
        upstream.send(21)
        first.request(.max(3))
        first.cancel()
        first.cancel()
        XCTAssertEqual(
            upstream.subscriptions.map(\.events),
            [[.request(.max(1)), .request(.max(3)), .cancel, .cancel], [.request(.unlimited)]])
        XCTAssertEqual(upstream.subscriptions[0].requested, .max(4))
        XCTAssertTrue(upstream.subscriptions[0].isCancelled)
        XCTAssertEqual(upstream.activeSubscriberCount, 1)
        XCTAssertEqual(first.values, [42])
        XCTAssertEqual(second.values, [21])
    }

    func testSendReturnsTheDemandTheSubscriberReturned() {
        let upstream = TestPublisher<Int, Never>()
        upstream.subscribe(TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2)))
        XCTAssertEqual(upstream.send(1), .max(2))
    }

    func testCompletionEndsEveryoneAndLaterSubscribersGetItAtOnce() {
        let upstream = TestPublisher<Int, TestFailure>()
        let early = TestSubscriber<Int, TestFailure>()
        upstream.subscribe(early)
        upstream.send(completion: .failure(TestFailure()))
        upstream.send(1)
        upstream.send(completion: .finished)
        let late = TestSubscriber<Int, TestFailure>()
        upstream.subscribe(late)
        XCTAssertEqual(early.events, [.subscription, .completion(.failure(TestFailure()))])
        XCTAssertEqual(late.events, [.subscription, .completion(.failure(TestFailure()))])
        XCTAssertEqual(upstream.activeSubscriberCount, 0)
    }

    func testCancelReleasesTheSubscriber() {
        let upstream = TestPublisher<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        var subscription: Subscription?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.subscribe(subscriber)
            subscription = subscriber.subscription
        }
        XCTAssertNotNil(weakSubscriber, "a subscribed subscriber is retained")
        subscription?.cancel()
        XCTAssertNil(weakSubscriber)
    }
}
