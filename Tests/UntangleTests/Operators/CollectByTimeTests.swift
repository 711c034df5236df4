import Dispatch
import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class CollectByTimeTests: XCTestCase {
    func testByTimeDeliversWhatEachIntervalCollectedAndSkipsEmptyIntervals() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<[Int], Never>(clock: scheduler)
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .milliseconds(500))
        subject.send(2)
        scheduler.advance(by: .milliseconds(700))
        subject.send(3)
        scheduler.advance(by: .seconds(2))  // 2000 ms: [3]; 3000 ms: nothing collected, nothing sent
        subject.send(4)
        subject.send(completion: .finished)
        scheduler.advance()  // the last group and the completion go through the scheduler
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("CollectByTime")), Timed(1000, .value([1, 2])), Timed(2000, .value([3])),
                Timed(3200, .value([4])), Timed(3200, .completion(.finished)),
            ])
    }

    func testByTimeOrCountCutsOnCountOrOnTime() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<[Int], Never>(clock: scheduler)
        subject.collect(.byTimeOrCount(scheduler, .seconds(1), 3)).subscribe(recorder)
        for value in 1...4 { subject.send(value) }  // [1, 2, 3] by count, scheduled at 0 ms
        scheduler.advance(by: .milliseconds(1500))  // [4] at 1000 ms, by time
        subject.send(5)
        subject.send(6)
        subject.send(7)  // [5, 6, 7] by count, scheduled at 1500 ms: the timer keeps its period
        subject.send(8)
        scheduler.advance(by: .milliseconds(500))  // [8] at 2000 ms
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("CollectByTime")), Timed(0, .value([1, 2, 3])), Timed(1000, .value([4])),
                Timed(1500, .value([5, 6, 7])), Timed(2000, .value([8])),
            ])
    }

    func testFailureDiscardsTheCollectedValues() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<[Int], TestError>(clock: scheduler)
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(completion: .failure(TestError(8)))
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("CollectByTime")), Timed(100, .completion(.failure(TestError(8))))])
        XCTAssertEqual(scheduler.scheduledActionCount, 0, "the timer is stopped")
    }

    func testByTimeOrCountAsksForCountTimesTheGroupsRequestedOrReturnedFromACountGroup() {
        let scheduler = TestScheduler()
        let counted = ManualPublisher<Int, Never>()
        let countedRecorder = Recorder<[Int], Never>(initialDemand: .max(2)) { _, _ in .max(1) }
        counted.collect(.byTimeOrCount(scheduler, .seconds(1), 3)).subscribe(countedRecorder)
        XCTAssertEqual(counted.history, [.request(.max(6))])
        for value in 1...3 { XCTAssertEqual(counted.send(value), .none) }
        XCTAssertEqual(counted.history, [.request(.max(6))], "the group waits for the scheduler")
        scheduler.advance()
        XCTAssertEqual(countedRecorder.events, [.subscription("CollectByTime"), .value([1, 2, 3])])
        XCTAssertEqual(counted.history, [.request(.max(6)), .request(.max(3))], "returned demand is in groups too")
    }

    /// Regression (Apple's behaviour since iOS 13.3, issue 29): `.byTime` keeps one value requested at a time,
    /// never `.unlimited`.
    func testByTimeAsksTheUpstreamForOneValueAtATime() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: nil)
        upstream.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        XCTAssertEqual(upstream.history, [])
        recorder.request(.max(2))
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(upstream.send(2), .max(1))
        recorder.request(.max(5))
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(1))], "one per request, whatever its size")
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.events, [.subscription("CollectByTime"), .value([1, 2])])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(1))], "a timer group asks for nothing")
    }

    /// Regression (Apple's behaviour since iOS 13.3, issue 29): a group cut by count, the last group and the
    /// completion wait for the scheduler; nothing reaches the subscriber from inside the upstream's signal.
    func testGroupsAndCompletionsAreDeliveredThroughTheSchedulerNeverFromReceive() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        upstream.collect(.byTimeOrCount(scheduler, .seconds(1), 2)).subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("CollectByTime")])
        XCTAssertEqual(scheduler.scheduledActionCount, 1, "one drain for the group and the completion; no timer")
        scheduler.advance()
        XCTAssertEqual(
            recorder.events, [.subscription("CollectByTime"), .value([1, 2]), .value([3]), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])

        let failing = ManualPublisher<Int, TestError>()
        let failed = Recorder<[Int], TestError>()
        failing.collect(.byTime(scheduler, .seconds(1))).subscribe(failed)
        failing.send(1)
        failing.send(completion: .failure(TestError(4)))
        XCTAssertEqual(failed.events, [.subscription("CollectByTime")])
        scheduler.advance()
        XCTAssertEqual(failed.events, [.subscription("CollectByTime"), .completion(.failure(TestError(4)))])
    }

    /// Regression (Apple's behaviour since iOS 13.3, recorded by CombineX): demand the subscriber returns from a
    /// group cut by count asks the upstream for that many groups' worth; demand returned from a group cut by the
    /// timer counts for the subscriber only.
    func testDemandReturnedFromATimerGroupIsNotPassedUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(clock: scheduler, initialDemand: .max(2)) { _, group in
            if group.contains(0) { return .max(1) }
            if group.contains(2) { return .max(5) }
            return .none
        }
        upstream.collect(.byTimeOrCount(scheduler, .seconds(1), 2)).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(4))])
        for value in 0...2 { XCTAssertEqual(upstream.send(value), .none) }  // [0, 1] by count; 2 waits
        scheduler.advance(by: .seconds(1))  // [0, 1] at 0 ms returns .max(1): two more; [2] at 1000 ms returns .max(5)
        XCTAssertEqual(upstream.history, [.request(.max(4)), .request(.max(2))])
        for value in 3...5 { XCTAssertEqual(upstream.send(value), .none) }  // [3, 4] by count; 5 waits
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("CollectByTime")), Timed(0, .value([0, 1])), Timed(1000, .value([2])),
                Timed(1000, .value([3, 4])), Timed(2000, .value([5])),
            ],
            "[5] is delivered with the demand the timer group returned")
        XCTAssertEqual(upstream.history, [.request(.max(4)), .request(.max(2))], "the .max(5) stayed downstream")
    }

    func testGroupsBeyondDemandWaitForIt() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<[Int], Never>(clock: scheduler, initialDemand: .max(1))
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(2)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("CollectByTime")), Timed(1000, .value([1]))])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.timedEvents.count, 2, "delivered through the scheduler, not from the request")
        scheduler.advance()
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("CollectByTime")), Timed(1000, .value([1])), Timed(2000, .value([2]))])
    }

    func testCancelStopsTheTimerAndDeliversNothingMore() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        upstream.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(recorder.events, [.subscription("CollectByTime")])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
    }

    func testCancelDropsAScheduledGroupAndTheCompletion() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        upstream.collect(.byTimeOrCount(scheduler, .seconds(1), 1)).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .finished)
        recorder.cancel()
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.events, [.subscription("CollectByTime")])
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "the upstream had finished: nothing to cancel")
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }

    func testReleasesTheSubscriberAfterCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<[Int], Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<[Int], Never>()
            weakRecorder = recorder
            subject.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
    }
}

final class CollectByTimeConcurrencyTests: XCTestCase {
    /// Values from a sender thread and groups cut by a timer on a concurrent queue: the subscriber sees one signal
    /// at a time, and every value arrives exactly once.
    func testTimerAndCountGroupsAreSerializedAndLoseNothing() {
        let subject = PassthroughSubject<Int, Never>()
        let detector = OverlapDetector()
        let received = LockedBox([Int]())
        let finished = expectation(description: "finished")
        let cancellable = subject.collect(.byTimeOrCount(DispatchQueue.global(), .microseconds(200), 7)).sink(
            receiveCompletion: { _ in finished.fulfill() },
            receiveValue: { group in detector.around { received.withLock { $0.append(contentsOf: group) } } })
        runConcurrently(threads: 1) { _ in
            for value in 0..<20_000 { subject.send(value) }
            subject.send(completion: .finished)
        }
        wait(for: [finished], timeout: 60)
        XCTAssertEqual(detector.overlaps, 0)
        XCTAssertEqual(received.withLock { $0.sorted() }, Array(0..<20_000))
        cancellable.cancel()
    }

    /// Requests from four threads racing the drains and timer ticks on a concurrent queue: one mover at a time
    /// delivers the groups, in the order they were cut, and nothing is lost or delivered twice.
    func testRequestsFromSeveralThreadsRacingDrainsKeepGroupsInOrder() {
        let recorder = Recorder<[Int], Never>(initialDemand: nil)
        let detector = OverlapDetector()
        let finished = expectation(description: "finished")
        let wrapped = AnySubscriber<[Int], Never>(
            receiveSubscription: { recorder.receive(subscription: $0) },
            receiveValue: { group in detector.around { recorder.receive(group) } },
            receiveCompletion: { completion in
                recorder.receive(completion: completion)
                finished.fulfill()
            })
        (0..<2_000).publisher.collect(.byTimeOrCount(DispatchQueue.global(), .microseconds(300), 2)).subscribe(wrapped)
        runConcurrently(threads: 4) { _ in
            for _ in 0..<250 { recorder.request(.max(1)) }
        }
        // Groups the timer cut short used demand too: whatever still waits goes now, then `.finished`.
        recorder.request(.unlimited)
        wait(for: [finished], timeout: 60)
        XCTAssertEqual(detector.overlaps, 0)
        XCTAssertEqual(recorder.values.flatMap { $0 }, Array(0..<2_000))
        XCTAssertEqual(recorder.completions, [.finished])
    }
}
