import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class ThrottleTests: XCTestCase {
    private func run(latest: Bool, sends: [(Int, Int)], until end: Int, finishAt: Int? = nil) -> [Timed<Int, Never>] {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler)
        subject.throttle(for: .seconds(1), scheduler: scheduler, latest: latest).subscribe(recorder)
        var clock = 0
        for (value, at) in sends {
            scheduler.advance(by: .milliseconds(at - clock))
            clock = at
            subject.send(value)
        }
        if let finishAt {
            scheduler.advance(by: .milliseconds(finishAt - clock))
            clock = finishAt
            subject.send(completion: .finished)
        }
        scheduler.advance(by: .milliseconds(end - clock))
        return recorder.timedEvents
    }

    func testLatestTrueDeliversTheFirstAtOnceThenTheMostRecentPerInterval() {
        let events = run(latest: true, sends: [(1, 0), (2, 300), (3, 600), (4, 1500), (5, 3500)], until: 5000)
        XCTAssertEqual(
            events,
            [
                Timed(0, .subscription("Throttle")), Timed(0, .value(1)), Timed(1000, .value(3)),
                Timed(2000, .value(4)), Timed(3500, .value(5)),
            ])
    }

    func testLatestFalseDeliversTheFirstValueOfEachInterval() {
        let events = run(latest: false, sends: [(1, 0), (2, 300), (3, 600), (4, 1500), (5, 1700)], until: 5000)
        XCTAssertEqual(
            events,
            [
                Timed(0, .subscription("Throttle")), Timed(0, .value(1)), Timed(1000, .value(2)),
                Timed(2000, .value(4)),
            ])
    }

    func testCompletionFollowsAWaitingValue() {
        let events = run(latest: true, sends: [(1, 0), (2, 300)], until: 5000, finishAt: 400)
        XCTAssertEqual(
            events,
            [
                Timed(0, .subscription("Throttle")), Timed(0, .value(1)), Timed(1000, .value(2)),
                Timed(1000, .completion(.finished)),
            ])
    }

    func testCompletionWithNothingWaitingIsDeliveredAtOnce() {
        let events = run(latest: true, sends: [(1, 0)], until: 5000, finishAt: 400)
        XCTAssertEqual(
            events,
            [Timed(0, .subscription("Throttle")), Timed(0, .value(1)), Timed(400, .completion(.finished))])
    }

    func testAsksUpstreamForUnlimitedAndDiscardsValuesWithoutDemand() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler, initialDemand: nil)
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        scheduler.advance(by: .milliseconds(100))
        recorder.request(.max(1))
        upstream.send(2)
        upstream.send(3)
        scheduler.advance(by: .seconds(3))
        upstream.send(4)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("Throttle")), Timed(100, .value(2))])
    }

    func testDemandReturnedFromReceiveCounts() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        subject.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(recorder)
        for value in 1...3 {
            subject.send(value)
            scheduler.advance(by: .seconds(1))
        }
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    /// Regression: the value waiting for the next interval must not be delivered after `cancel()` returned.
    func testCancelDropsTheWaitingValueAndCancelsUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(recorder)
        upstream.send(1)
        scheduler.advance()
        upstream.send(2)
        recorder.cancel()
        recorder.cancel()
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.events, [.subscription("Throttle"), .value(1)])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    /// Regression: the upstream releases the subscription when it finishes; with a subscriber that keeps no
    /// reference to it either, the waiting value and the completion must still be delivered (they were lost when the
    /// scheduled emission held the subscription weakly).
    func testWaitingValueAndCompletionArriveWhenNobodyElseHoldsTheSubscription() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let events = LockedBox([String]())
        subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(
            AnySubscriber(
                receiveSubscription: { $0.request(.unlimited) },
                receiveValue: { value in
                    events.withLock { $0.append("\(value)") }
                    return .none
                },
                receiveCompletion: { _ in events.withLock { $0.append("finished") } }))
        subject.send(1)
        scheduler.advance(by: .zero)
        subject.send(2)
        subject.send(completion: .finished)
        XCTAssertEqual(events.withLock { $0 }, ["1"])
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(events.withLock { $0 }, ["1", "2", "finished"])
        subject.send(3)
    }

    /// Regression: after the last value was delivered, a completion is delivered at once on the scheduler, not
    /// after the interval.
    func testCompletionAfterTheLastValueIsDeliveredWithoutWaitingForTheInterval() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let events = LockedBox([String]())
        subject.throttle(for: .seconds(60), scheduler: scheduler, latest: true).subscribe(
            AnySubscriber(
                receiveSubscription: { $0.request(.unlimited) },
                receiveValue: { value in
                    events.withLock { $0.append("\(value)") }
                    return .none
                },
                receiveCompletion: { _ in events.withLock { $0.append("finished") } }))
        subject.send(1)
        scheduler.advance(by: .zero)
        subject.send(completion: .finished)
        scheduler.advance(by: .zero)
        XCTAssertEqual(events.withLock { $0 }, ["1", "finished"])
    }

    func testReleasesTheSubscriberAfterCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let throttled = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true)
        let released = recorderIsReleased(throttled) { recorder in
            subject.send(1)
            recorder.cancel()
        }
        XCTAssertTrue(released, "released at cancel, although the throttled value waits for its window")
        scheduler.advance(by: .seconds(1))
    }

    /// As Apple's: "Throttle" with an empty mirror; the upstream is asked before the subscriber is subscribed; a
    /// cancel while the completion waits still cancels the upstream.
    func testDescriptionMirrorAndCancelWhileTheCompletionWaits() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(recorder)
        let subscription = recorder.subscription!
        XCTAssertEqual(String(describing: subscription), "Throttle")
        XCTAssertEqual(Mirror(reflecting: subscription).children.count, 0)
        upstream.send(1)
        upstream.send(completion: .finished)
        recorder.cancel()
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.events, [.subscription("Throttle")])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class ThrottleConcurrencyTests: XCTestCase {
    /// Values sent from several threads into a throttle on a concurrent queue: the subscriber sees one signal at a
    /// time, and the value sent last (after every sender returned) is delivered (`latest: true` keeps it).
    func testSendersOnSeveralThreadsAreSerializedAndTheLastValueArrives() {
        assertSendersOnSeveralThreadsAreSerializedAndTheLastValueArrives {
            $0.throttle(for: .milliseconds(1), scheduler: DispatchQueue.global(), latest: true).eraseToAnyPublisher()
        }
    }

    /// A cancel racing senders on other threads and emissions on a concurrent queue: every thread finishes (no
    /// deadlock) and the subscriber is released once the emissions still on the queue have run.
    func testCancelRacingSendersAndEmissionsReleasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        let queue = DispatchQueue(label: "throttle.emissions", attributes: .concurrent)
        weak var released: AnyObject?
        let cancellable = LockedBox<AnyCancellable?>(nil)
        do {
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
            released = sink
            subject.throttle(for: .microseconds(50), scheduler: queue, latest: true).subscribe(sink)
            cancellable.withLock { $0 = AnyCancellable(sink) }
        }
        runConcurrently(threads: 3) { thread in
            if thread == 0 {
                for _ in 0..<200 { _ = cancellable.withLock { $0 } }
                cancellable.withLock { $0 }?.cancel()
            } else {
                for value in 0..<2_000 { subject.send(value) }
            }
        }
        cancellable.withLock { $0 = nil }
        queue.sync(flags: .barrier) {}
        let deadline = Date().addingTimeInterval(10)
        while released != nil, Date() < deadline { queue.sync(flags: .barrier) {} }
        XCTAssertNil(released, "the subscriber is kept alive after cancel")
    }
}
