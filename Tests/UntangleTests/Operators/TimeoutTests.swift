import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class TimeoutTests: XCTestCase {
    func testFiresAtTheDeadlineWithTheCustomErrorAndCancelsUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        let calls = LockedBox(0)
        upstream.timeout(.milliseconds(500), scheduler: scheduler) {
            calls.withLock { $0 += 1 }
            return TestError(9)
        }.subscribe(recorder)
        scheduler.advance(by: .milliseconds(300))
        upstream.send(1)
        scheduler.advance(by: .milliseconds(499))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("Timeout")), Timed(300, .value(1))])
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("Timeout")), Timed(300, .value(1)),
                Timed(800, .completion(.failure(TestError(9)))),
            ])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        upstream.send(2)
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(recorder.timedEvents.count, 3, "nothing after the timeout")
        XCTAssertEqual(calls.withLock { $0 }, 1)
    }

    func testWithoutCustomErrorItFinishesAtTheDeadline() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<String, Never>()
        let recorder = Recorder<String, Never>(clock: scheduler)
        subject.timeout(.seconds(5), scheduler: scheduler).subscribe(recorder)
        scheduler.advance(by: .seconds(2))
        subject.send("data")
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Timeout")), Timed(2000, .value("data")), Timed(7000, .completion(.finished))])
    }

    func testTheClockStartsAtSubscriptionEvenWithoutValuesOrDemand() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler, initialDemand: nil)
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(recorder)
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(
            recorder.timedEvents, [Timed(0, .subscription("Timeout")), Timed(1000, .completion(.finished))])
        XCTAssertEqual(upstream.history, [.cancel])
    }

    func testValuesKeepItAliveAndTheUpstreamsCompletionWins() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subject.timeout(.seconds(1), scheduler: scheduler, customError: { TestError(1) }).subscribe(recorder)
        for value in 1...3 {
            scheduler.advance(by: .milliseconds(900))
            subject.send(value)
        }
        scheduler.advance(by: .milliseconds(100))
        subject.send(completion: .finished)
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("Timeout")), Timed(900, .value(1)), Timed(1800, .value(2)),
                Timed(2700, .value(3)), Timed(2800, .completion(.finished)),
            ])
    }

    func testCancelDisarmsTheTimerAndDropsWaitingValues() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        let calls = LockedBox(0)
        upstream.timeout(.seconds(1), scheduler: scheduler) {
            calls.withLock { $0 += 1 }
            return TestError()
        }.subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(recorder.events, [.subscription("Timeout")])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(calls.withLock { $0 }, 0, "customError is not called after cancel")
    }

    func testDemandPassesThroughAndReturnedDemandIsRequestedUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(2) }
        upstream.timeout(.seconds(1), scheduler: scheduler).subscribe(recorder)
        upstream.send(1)
        scheduler.advance()
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(2))])
    }

    func testReleasesTheSubscriberAfterCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let released = recorderIsReleased(subject.timeout(.seconds(60), scheduler: scheduler)) { recorder in
            recorder.cancel()
        }
        XCTAssertTrue(released, "the armed timer does not keep the subscriber")
    }
}

final class TimeoutConcurrencyTests: XCTestCase {
    /// Regression (found by the verifier's "cancel from inside receive" rule): while the subscriber was still in
    /// `receive(subscription:)`, the scheduler's thread handed every value and then the completion to the emitter;
    /// the completion ended the operator's state, so a `cancel()` from inside the second value found nothing to end
    /// and let the queued values and the completion through after it returned. Deterministic: the subscriber waits
    /// inside `receive(subscription:)` until the queue has run everything the upstream scheduled.
    func testCancelStopsValuesAndCompletionQueuedBehindTheSubscriptionCallout() {
        let queue = DispatchQueue(label: "timeout-queued")
        let recorder = Recorder<Int, Never>(
            initialDemand: nil,
            onValue: { recorder, value in
                if value == 1 { recorder.cancel() }
                return .none
            },
            onSubscription: { _, subscription in
                subscription.request(.unlimited)
                queue.sync {}
            })
        (0..<100).publisher.timeout(.seconds(60), scheduler: queue).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Timeout"), .value(0), .value(1)])
    }
}
