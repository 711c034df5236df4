import Dispatch
import Foundation
import UntangleSync
import UntangleTesting
import XCTest

@testable import Untangle

/// The core debounce's package option (`receive(subscriber:deliveringPendingValueOnFinish:)`, UntangleExtras'
/// RxSwift-style `debounce(for:scheduler:options:onFinish:)`): a value counting down when the upstream finishes is
/// delivered on the scheduler before the completion, as soon as the subscriber has demand for it.
final class DebouncePendingValueOnFinishTests: XCTestCase {
    private func subscribe<Scheduled: Scheduler>(
        _ upstream: ManualPublisher<Int, TestError>, _ recorder: Recorder<Int, TestError>, on scheduler: Scheduled,
        delivering: Bool = true
    ) where Scheduled.SchedulerTimeType == TestScheduler.SchedulerTimeType {
        Publishers.Debounce(upstream: upstream, dueTime: .seconds(1), scheduler: scheduler, options: nil)
            .receive(subscriber: recorder, deliveringPendingValueOnFinish: delivering)
    }

    func testAFinishDeliversTheValueCountingDownThenFinishes() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subscribe(upstream, recorder, on: scheduler)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(200))
        upstream.send(2)
        scheduler.advance(by: .milliseconds(200))
        upstream.finish()
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(400, .value(2)), Timed(400, .completion(.finished))])
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "a finished upstream is not cancelled")
        XCTAssertEqual(scheduler.scheduledActionCount, 0, "the value's timer was cancelled")
    }

    func testWithoutTheOptionTheSameStreamOnlyFinishes() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subscribe(upstream, recorder, on: scheduler, delivering: false)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(200))
        upstream.finish()
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(
            recorder.timedEvents, [Timed(0, .subscription("Debounce")), Timed(200, .completion(.finished))])
    }

    func testValuesAlreadyDeliveredOrDroppedAreNotSentAgainAtTheFinish() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler, initialDemand: .max(1))
        subscribe(upstream, recorder, on: scheduler)
        upstream.send(1)
        scheduler.advance(by: .seconds(1))
        upstream.send(2)
        scheduler.advance(by: .seconds(1))
        upstream.finish()
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(1000, .value(1)), Timed(2000, .completion(.finished))])
    }

    func testAFailureDropsTheValueCountingDownAndIsDeliveredAtOnce() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subscribe(upstream, recorder, on: scheduler)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(300))
        upstream.send(completion: .failure(TestError(7)))
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(300, .completion(.failure(TestError(7))))])
    }

    func testWithoutDemandTheValueAndTheCompletionWaitForTheNextRequest() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler, initialDemand: nil)
        subscribe(upstream, recorder, on: scheduler)
        upstream.send(1)
        upstream.finish()
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("Debounce"))], "nothing without demand")
        recorder.request(.none)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("Debounce"))], "nor for a zero request")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("Debounce"))], "delivered on the scheduler")
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(6000, .value(1)), Timed(6000, .completion(.finished))])
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }

    /// Regression: the finishing check ran while an earlier value was still being delivered (its demand not yet
    /// returned) and found none; the demand that value's `receive` then returned was counted but woke nothing, so the
    /// pending value and the completion never came. The returned demand now goes through the operator's `request`.
    func testDemandReturnedByAValueStillBeingDeliveredReleasesThePendingValue() {
        let clock = TestScheduler()
        let scheduler = InlineNowScheduler(clock: clock)
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: clock, initialDemand: .max(1)) { _, value in
            if value == 1 {
                upstream.send(2)
                upstream.finish()  // the finishing check runs now, in line, with no demand left
            }
            return .max(1)
        }
        subscribe(upstream, recorder, on: scheduler)
        upstream.send(1)
        clock.advance(by: .seconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("Debounce")), Timed(1000, .value(1)), Timed(1000, .value(2)),
                Timed(1000, .completion(.finished)),
            ])
        XCTAssertEqual(clock.scheduledActionCount, 0)
    }

    func testACancelWhileTheValueWaitsForDemandDeliversNothingAndReleasesTheSubscriber() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        weak var released: Recorder<Int, TestError>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, TestError>(initialDemand: nil)
            released = recorder
            subscribe(upstream, recorder, on: scheduler)
            subscription = recorder.subscription
            upstream.send(1)
            upstream.finish()
            scheduler.advance(by: .seconds(5))
            XCTAssertEqual(recorder.events, [.subscription("Debounce")])
            subscription?.request(.max(1))
            subscription?.cancel()
            scheduler.advance(by: .seconds(5))
            XCTAssertEqual(recorder.events, [.subscription("Debounce")], "the check scheduled before the cancel")
        }
        XCTAssertNil(released, "the machine let go of the subscriber and of its own subscription")
        subscription = nil
    }

    func testTheSubscriberIsReleasedAfterThePendingValueAndTheCompletion() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        weak var released: Recorder<Int, TestError>?
        do {
            let recorder = Recorder<Int, TestError>()
            released = recorder
            subscribe(upstream, recorder, on: scheduler)
            upstream.send(1)
            upstream.finish()
            scheduler.advance()
            XCTAssertEqual(recorder.events, [.subscription("Debounce"), .value(1), .completion(.finished)])
        }
        XCTAssertNil(released)
    }
}

final class DebouncePendingValueOnFinishConcurrencyTests: XCTestCase {
    /// The finish (with a value counting down) races the subscriber's only request, on a concurrent queue: every
    /// round delivers the value exactly once, then the completion.
    func testAFinishRacingTheRequestDeliversThePendingValueOnce() {
        for round in 0..<200 {
            let upstream = ManualPublisher<Int, Never>()
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            Publishers.Debounce(
                upstream: upstream, dueTime: .seconds(60), scheduler: DispatchQueue.global(), options: nil
            )
            .receive(subscriber: recorder, deliveringPendingValueOnFinish: true)
            upstream.send(round)
            runConcurrently(threads: 2) { thread in
                if thread == 0 { upstream.finish() } else { recorder.request(.max(1)) }
            }
            recorder.waitForCompletion(timeout: 60)
            XCTAssertEqual(
                recorder.events, [.subscription("Debounce"), .value(round), .completion(.finished)], "round \(round)")
        }
    }
}

/// Runs what is scheduled for now in line (as `ImmediateScheduler`), timed actions on `clock`'s virtual time: a
/// finishing check then runs inside the signal that schedules it.
private struct InlineNowScheduler: Scheduler {
    typealias SchedulerTimeType = TestScheduler.SchedulerTimeType
    typealias SchedulerOptions = TestScheduler.SchedulerOptions

    let clock: TestScheduler

    var now: SchedulerTimeType { clock.now }
    var minimumTolerance: SchedulerTimeType.Stride { clock.minimumTolerance }

    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        clock.schedule(after: date, tolerance: tolerance, options: options, action)
    }

    func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> Cancellable {
        clock.schedule(after: date, interval: interval, tolerance: tolerance, options: options, action)
    }
}
