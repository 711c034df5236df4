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
        let recorder = TimedRecorder<[Int], Never>(scheduler: scheduler)
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .milliseconds(500))
        subject.send(2)
        scheduler.advance(by: .milliseconds(700))
        subject.send(3)
        scheduler.advance(by: .seconds(2))  // 2000 ms: [3]; 3000 ms: nothing collected, nothing sent
        subject.send(4)
        subject.send(completion: .finished)
        XCTAssertEqual(
            recorder.events,
            [
                Timed(0, .subscription("CollectByTime")), Timed(1000, .value([1, 2])), Timed(2000, .value([3])),
                Timed(3200, .value([4])), Timed(3200, .completion(.finished)),
            ])
    }

    func testByTimeOrCountCutsOnCountOrOnTime() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = TimedRecorder<[Int], Never>(scheduler: scheduler)
        subject.collect(.byTimeOrCount(scheduler, .seconds(1), 3)).subscribe(recorder)
        for value in 1...4 { subject.send(value) }  // [1, 2, 3] at once, by count
        scheduler.advance(by: .milliseconds(1500))  // [4] at 1000 ms, by time
        subject.send(5)
        subject.send(6)
        subject.send(7)  // [5, 6, 7] at 1500 ms, by count: the timer keeps its period
        subject.send(8)
        scheduler.advance(by: .milliseconds(500))  // [8] at 2000 ms
        XCTAssertEqual(
            recorder.events,
            [
                Timed(0, .subscription("CollectByTime")), Timed(0, .value([1, 2, 3])), Timed(1000, .value([4])),
                Timed(1500, .value([5, 6, 7])), Timed(2000, .value([8])),
            ])
    }

    func testFailureDiscardsTheCollectedValues() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = TimedRecorder<[Int], TestError>(scheduler: scheduler)
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .milliseconds(100))
        subject.send(completion: .failure(TestError(8)))
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(
            recorder.events,
            [Timed(0, .subscription("CollectByTime")), Timed(100, .completion(.failure(TestError(8))))])
        XCTAssertEqual(scheduler.scheduledActionCount, 0, "the timer is stopped")
    }

    func testDemandMapsToCountTimesGroupsOrToUnlimited() {
        let scheduler = TestScheduler()
        let counted = ManualPublisher<Int, Never>()
        let countedRecorder = Recorder<[Int], Never>(initialDemand: .max(2)) { _, _ in .max(1) }
        counted.collect(.byTimeOrCount(scheduler, .seconds(1), 3)).subscribe(countedRecorder)
        XCTAssertEqual(counted.history, [.request(.max(6))])
        for value in 1...3 { counted.send(value) }
        XCTAssertEqual(counted.history, [.request(.max(6)), .request(.max(3))], "returned demand is in groups too")

        let timed = ManualPublisher<Int, Never>()
        let timedRecorder = Recorder<[Int], Never>(initialDemand: nil)
        timed.collect(.byTime(scheduler, .seconds(1))).subscribe(timedRecorder)
        XCTAssertEqual(timed.history, [])
        timedRecorder.request(.max(1))
        timedRecorder.request(.max(1))
        XCTAssertEqual(timed.history, [.request(.unlimited)])
    }

    func testGroupsBeyondDemandWaitForIt() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = TimedRecorder<[Int], Never>(scheduler: scheduler, initialDemand: .max(1))
        subject.collect(.byTime(scheduler, .seconds(1))).subscribe(recorder)
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(2)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.events, [Timed(0, .subscription("CollectByTime")), Timed(1000, .value([1]))])
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events,
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
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
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
}
