import Dispatch
import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class DelayTests: XCTestCase {
    func testEveryValueAndTheCompletionAreShiftedButNotTheSubscription() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subject.delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(2)
        scheduler.advance(by: .milliseconds(50))
        subject.send(completion: .finished)
        scheduler.advance(by: .milliseconds(500))
        XCTAssertEqual(
            recorder.timedEvents, [Timed(0, .subscription(String(describing: recorder.subscription!)))],
            "nothing is due before 1000 ms")
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription(String(describing: recorder.subscription!))), Timed(1000, .value(1)),
                Timed(1100, .value(2)),
                Timed(1150, .completion(.finished)),
            ])
    }

    func testFailureIsDelayedToo() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subject.delay(for: .milliseconds(200), scheduler: scheduler).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .milliseconds(10))
        subject.send(completion: .failure(TestError(5)))
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription(String(describing: recorder.subscription!))), Timed(200, .value(1)),
                Timed(210, .completion(.failure(TestError(5)))),
            ])
    }

    func testDemandPassesThroughAndReturnedDemandIsRequestedUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        upstream.send(1)
        XCTAssertEqual(upstream.history, [.request(.max(1))], "the returned demand comes with the delayed delivery")
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(1))])
    }

    func testCompletionWithZeroDemandIsDelivered() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        upstream.send(completion: .finished)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(
            recorder.events, [.subscription(String(describing: recorder.subscription!)), .completion(.finished)])
    }

    /// Regression: a value waiting out its delay must not be delivered after `cancel()` returned.
    func testCancelDuringTheDelayDeliversNothingAndCancelsUpstreamOnce() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(500))
        recorder.cancel()
        recorder.cancel()
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(recorder.events, [.subscription(String(describing: recorder.subscription!))])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testDefaultToleranceIsTheSchedulersMinimum() {
        let scheduler = TestScheduler()
        let delayed = Just(1).delay(for: .seconds(2), scheduler: scheduler)
        XCTAssertEqual(delayed.tolerance, scheduler.minimumTolerance)
        XCTAssertEqual(delayed.interval, .seconds(2))
        XCTAssertEqual(Just(1).delay(for: 1, tolerance: 0.5, scheduler: scheduler).tolerance, .milliseconds(500))
    }

    func testReleasesTheSubscriberAfterCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
            subscription = recorder.subscription
        }
        subject.send(1)
        subscription?.cancel()
        XCTAssertNil(
            weakRecorder,
            "released at cancel: the scheduled value holds the subscription, not the subscriber (Apple's "
                + "keeps the subscriber until the scheduled work ran)")
        scheduler.advance(by: .seconds(1))
    }

    func testSubscriptionDoesNotDescribeItself() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Just(1).delay(for: 1, scheduler: TestScheduler()).subscribe(recorder)
        // As Apple's, it does not describe itself: it prints as its type.
        let subscription = recorder.subscription!
        XCTAssertFalse(subscription is CustomStringConvertible)
        XCTAssertFalse(subscription is CustomReflectable)
    }
}

final class DelayConcurrencyTests: XCTestCase {
    /// Cancel races delayed deliveries on a serial queue, 1,000 times: after `cancel()` returns, at most the one
    /// delivery already running may finish; nothing still waiting out its delay arrives.
    func testCancelRacingDelayedDeliveryStopsEverythingStillWaiting() {
        for _ in 0..<1_000 {
            let queue = DispatchQueue(label: "delay-race")
            let subject = PassthroughSubject<Int, Never>()
            let cancelReturned = LockedBox(false)
            let late = LockedBox(0)
            let recorder = Recorder<Int, Never> { _, _ in
                if cancelReturned.withLock({ $0 }) { late.withLock { $0 += 1 } }
                return .none
            }
            subject.delay(for: .nanoseconds(1), scheduler: queue).subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    // No completion: as Apple's, cancel() after the upstream completed does nothing.
                    for value in 0..<20 { subject.send(value) }
                } else {
                    recorder.cancel()
                    cancelReturned.withLock { $0 = true }
                }
            }
            // Everything was scheduled a nanosecond ahead: a short wait on the queue covers it. The expectation
            // only bounds the wait; the assertion does not depend on how long it takes.
            let drained = expectation(description: "drained")
            queue.asyncAfter(deadline: .now() + .milliseconds(1)) { drained.fulfill() }
            wait(for: [drained], timeout: 30)
            XCTAssertLessThanOrEqual(late.withLock { $0 }, 1, "values still waiting arrived after cancel returned")
        }
    }
}
