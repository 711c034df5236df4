import Dispatch
import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class ReceiveOnTests: XCTestCase {
    func testValuesAndCompletionWaitForTheSchedulerAndKeepTheirOrder() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        subject.receive(on: scheduler).subscribe(recorder)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        XCTAssertEqual(
            recorder.timedEvents, [Timed(0, .subscription("ReceiveOn"))], "nothing moves before the scheduler runs")
        scheduler.advance()
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("ReceiveOn")), Timed(0, .value(1)), Timed(0, .value(2)),
                Timed(0, .completion(.finished)),
            ])
    }

    func testASecondUpstreamSubscriptionIsCancelledAndRequestsGoToTheFirst() throws {
        let scheduler = TestScheduler()
        let upstream = HoldingPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler)
        upstream.receive(on: scheduler).subscribe(recorder)
        let first = LoggingSubscription()
        let second = LoggingSubscription()
        upstream.subscriber?.receive(subscription: first)
        upstream.subscriber?.receive(subscription: second)
        XCTAssertEqual(second.log, ["cancel"])
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("ReceiveOn"))])
        XCTAssertEqual(first.log, ["request(unlimited)"], "the recorder's demand reaches the first one only")
    }

    func testFailureFollowsTheValuesSentBeforeIt() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        subject.receive(on: scheduler).subscribe(recorder)
        subject.send(1)
        subject.send(completion: .failure(TestError(3)))
        subject.send(2)
        scheduler.advance()
        XCTAssertEqual(
            recorder.events, [.subscription("ReceiveOn"), .value(1), .completion(.failure(TestError(3)))])
    }

    func testDemandPassesThroughAndReturnedDemandIsRequestedUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2)) { _, value in value == 1 ? .max(3) : .none }
        upstream.receive(on: scheduler).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        XCTAssertEqual(upstream.send(1), .none, "the returned demand travels from the scheduler, not the send")
        upstream.send(2)
        scheduler.advance()
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(3))])
    }

    func testInitialDemandZeroThenLaterRequest() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.receive(on: scheduler).subscribe(recorder)
        XCTAssertEqual(upstream.history, [])
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        upstream.send(7)
        scheduler.advance()
        XCTAssertEqual(recorder.events, [.subscription("ReceiveOn"), .value(7)])
    }

    func testCompletionWithZeroDemandIsDelivered() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.receive(on: scheduler).subscribe(recorder)
        upstream.send(completion: .finished)
        scheduler.advance()
        XCTAssertEqual(recorder.events, [.subscription("ReceiveOn"), .completion(.finished)])
    }

    /// Regression: a value still waiting on the scheduler must not reach the subscriber after `cancel()` returned.
    func testCancelDropsEverythingStillWaitingOnTheScheduler() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.receive(on: scheduler).subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        scheduler.advance()
        XCTAssertEqual(recorder.events, [.subscription("ReceiveOn")])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    /// The contract's prompt cancel (Apple's ignores a cancel once the upstream completed and still delivers what
    /// was scheduled): nothing waiting on the scheduler, the completion included, is delivered once `cancel()`
    /// returned, and the subscriber is released at once.
    func testCancelAfterTheUpstreamCompletedDropsWhatWaitsOnTheScheduler() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.receive(on: scheduler).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .finished)
        recorder.cancel()
        recorder.request(.max(1))
        scheduler.advance()
        XCTAssertEqual(recorder.events, [.subscription("ReceiveOn")])
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "the upstream had completed: nothing to cancel")
    }

    /// As Apple's: values reach the subscriber whatever it asked for; requests (even `.none`) go upstream.
    func testValuesAreDeliveredWithoutDemandAndRequestsPassThrough() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.receive(on: scheduler).subscribe(recorder)
        recorder.request(.none)
        upstream.send(1)
        scheduler.advance()
        XCTAssertEqual(recorder.events, [.subscription("ReceiveOn"), .value(1)])
        XCTAssertEqual(upstream.history, [.request(.none)])
    }

    func testDescriptionAndMirror() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Just(1).receive(on: TestScheduler()).subscribe(recorder)
        let subscription = recorder.subscription!
        XCTAssertEqual(String(describing: subscription), "ReceiveOn")
        XCTAssertEqual(Mirror(reflecting: subscription).children.count, 0)
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "ReceiveOn")
    }

    func testCancelDuringDeliveryStopsTheRestAndCancelsUpstreamOnce() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never> { recorder, value in
            if value == 2 { recorder.cancel() }
            return .none
        }
        upstream.receive(on: scheduler).subscribe(recorder)
        for value in 1...4 { upstream.send(value) }
        scheduler.advance()
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testReentrantRequestFromReceive() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        upstream.receive(on: scheduler).subscribe(recorder)
        upstream.send(1)
        scheduler.advance()
        upstream.send(2)
        scheduler.advance()
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(1)), .request(.max(1))])
    }

    func testSynchronousUpstreamOnTheImmediateSchedulerDeliversEverythingInOrder() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        (1...5).publisher.receive(on: ImmediateScheduler.shared).subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("ReceiveOn")] + (1...5).map { .value($0) } + [.completion(.finished)])
    }

    func testReleasesTheSubscriberAfterCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let released = recorderIsReleased(subject.receive(on: scheduler)) { recorder in
            subject.send(1)  // scheduled; the scheduled work holds the subscription, not the subscriber
            recorder.cancel()
        }
        XCTAssertTrue(released, "released at cancel, although work is still scheduled")
        scheduler.advance()
    }

    func testCancelWithNothingScheduledReleasesTheSubscriberAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        XCTAssertTrue(recorderIsReleased(subject.receive(on: TestScheduler())) { $0.cancel() })
    }

    func testReleasesTheSubscriberAfterCompletion() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.receive(on: scheduler).subscribe(recorder)
        }
        subject.send(completion: .finished)
        scheduler.advance()
        XCTAssertNil(weakRecorder)
    }
}

/// Marks a queue so that a closure can check it runs there.
private let queueKey = DispatchSpecificKey<String>()

final class ReceiveOnConcurrencyTests: XCTestCase {
    /// Regression: while the subscriber was still in `receive(subscription:)`, the queue handed every value and
    /// then the completion to the emitter; the completion ended the hop's state, so a `cancel()` from inside the
    /// second value found nothing to end and let the queued values and the completion through after it returned.
    func testCancelStopsValuesAndCompletionQueuedBehindTheSubscriptionCallout() {
        for hop in ["receive(on:)", "delay"] {
            let queue = DispatchQueue(label: "hop-queued")
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
            if hop == "delay" {
                (0..<100).publisher.delay(for: .zero, scheduler: queue).subscribe(recorder)
            } else {
                (0..<100).publisher.receive(on: queue).subscribe(recorder)
            }
            XCTAssertEqual(recorder.values, [0, 1], hop)
            XCTAssertEqual(recorder.completions.count, 0, hop)
        }
    }

    func testHundredThousandValuesKeepTheirOrderAndArriveOnTheTargetQueue() {
        let queue = DispatchQueue(label: "receive-on-target")
        queue.setSpecific(key: queueKey, value: "target")
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox((values: [Int](), offQueue: 0, completionOnQueue: false))
        let finished = expectation(description: "finished")
        let cancellable = subject.receive(on: queue).sink(
            receiveCompletion: { _ in
                received.withLock { $0.completionOnQueue = DispatchQueue.getSpecific(key: queueKey) == "target" }
                finished.fulfill()
            },
            receiveValue: { value in
                let onQueue = DispatchQueue.getSpecific(key: queueKey) == "target"
                received.withLock {
                    $0.values.append(value)
                    if !onQueue { $0.offQueue += 1 }
                }
            })
        runConcurrently(threads: 1) { _ in
            for value in 0..<100_000 { subject.send(value) }
            subject.send(completion: .finished)
        }
        wait(for: [finished], timeout: 60)
        let result = received.withLock { $0 }
        XCTAssertEqual(result.values, Array(0..<100_000))
        XCTAssertEqual(result.offQueue, 0, "every value is delivered on the target queue")
        XCTAssertTrue(result.completionOnQueue)
        cancellable.cancel()
    }

    func testConcurrentQueueDeliversOneAtATimeAndLosesNothing() {
        let subject = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let count = LockedBox(0)
        let finished = expectation(description: "finished")
        let cancellable = subject.receive(on: DispatchQueue.global()).sink(
            receiveCompletion: { _ in finished.fulfill() },
            receiveValue: { _ in detector.around { count.withLock { $0 += 1 } } })
        runConcurrently(threads: 4) { thread in
            for value in 0..<5_000 { subject.send(thread * 10_000 + value) }
        }
        subject.send(completion: .finished)
        wait(for: [finished], timeout: 60)
        XCTAssertEqual(detector.overlaps, 0)
        XCTAssertEqual(count.withLock { $0 }, 20_000, "the completion waits for every value scheduled before it")
        cancellable.cancel()
    }

    /// Deterministic: the queue is held while values are scheduled behind the hold; `cancel()` returns; then the
    /// queue runs. None of the values may arrive.
    func testValuesWaitingOnAHeldQueueAreNotDeliveredAfterCancelReturns() {
        let queue = DispatchQueue(label: "held")
        let release = DispatchSemaphore(value: 0)
        queue.async { _ = release.wait(timeout: .now() + 30) }
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        subject.receive(on: queue).subscribe(recorder)
        for value in 0..<100 { subject.send(value) }
        recorder.cancel()
        // After the cancel: as Apple's, a cancel after the upstream's completion would do nothing.
        subject.send(completion: .finished)
        release.signal()
        let drained = expectation(description: "queue drained")
        queue.async { drained.fulfill() }
        wait(for: [drained], timeout: 30)
        XCTAssertEqual(recorder.events, [.subscription("ReceiveOn")])
    }

    /// Cancel races the delivery from another thread, 1,000 times. After `cancel()` has returned, at most the one
    /// delivery already running on the serial queue may still arrive (the contract: a running delivery finishes);
    /// nothing that was still waiting on the queue may.
    func testCancelRacingScheduledDeliveryStopsEverythingStillWaiting() {
        var maxLate = 0
        for _ in 0..<1_000 {
            let queue = DispatchQueue(label: "race")
            let subject = PassthroughSubject<Int, Never>()
            let cancelReturned = LockedBox(false)
            let late = LockedBox(0)
            let recorder = Recorder<Int, Never> { _, _ in
                if cancelReturned.withLock({ $0 }) { late.withLock { $0 += 1 } }
                return .none
            }
            subject.receive(on: queue).subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for value in 0..<50 { subject.send(value) }
                } else {
                    recorder.cancel()
                    cancelReturned.withLock { $0 = true }
                }
            }
            let drained = expectation(description: "drained")
            queue.async { drained.fulfill() }
            wait(for: [drained], timeout: 30)
            let lateCount = late.withLock { $0 }
            XCTAssertLessThanOrEqual(lateCount, 1, "values still waiting on the queue arrived after cancel returned")
            XCTAssertEqual(recorder.completions, [])
            maxLate = max(maxLate, lateCount)
        }
        XCTAssertLessThanOrEqual(maxLate, 1)
    }
}
