import Foundation
import Untangle
import UntangleSync
import XCTest

final class MergeTests: XCTestCase {
    func testInterleavesAndFinishesWhenAllFinish() {
        let a = PassthroughSubject<Int, TestError>()
        let b = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        a.merge(with: b).subscribe(recorder)
        a.send(1)
        b.send(2)
        a.send(completion: .finished)
        b.send(3)
        XCTAssertEqual(recorder.completions, [])
        b.send(completion: .finished)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Merge"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testFailureCancelsTheOthersAndIsDeliveredOnce() {
        let a = ManualPublisher<Int, TestError>()
        let b = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(5))
        a.merge(with: b).subscribe(recorder)
        XCTAssertEqual(a.history, [.request(.max(5))])
        XCTAssertEqual(b.history, [.request(.max(5))])
        a.send(1)
        a.send(completion: .failure(TestError(9)))
        b.send(completion: .failure(TestError(10)))
        XCTAssertEqual(recorder.events, [.subscription("Merge"), .value(1), .completion(.failure(TestError(9)))])
        XCTAssertEqual(b.history, [.request(.max(5)), .cancel])
    }

    func testDemandIsForwardedToEveryUpstreamAndExtraValuesWaitForDemand() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        Publishers.Merge(a, b).subscribe(recorder)
        a.send(1)
        b.send(2)  // allowed upstream, but the downstream's demand is used up: it waits
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1, 2], "nothing the upstreams were allowed to send is lost")
        XCTAssertEqual(a.history, [.request(.max(1)), .request(.max(1))])
        XCTAssertEqual(b.history, [.request(.max(1)), .request(.max(1))])
    }

    /// Regression: demand returned from `receive(_:)` was counted by the merge's emitter but never forwarded to the
    /// upstreams, so a subscriber that asks for one more value each time stalled after the first.
    func testDemandReturnedFromReceiveReachesEveryUpstream() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        a.merge(with: b).subscribe(recorder)
        a.send(1)
        b.send(2)
        a.send(3)
        XCTAssertEqual(recorder.values, [1, 2, 3])
        let upstream = ManualPublisher<Int, Never>()
        let other = ManualPublisher<Int, Never>()
        let second = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(2) }
        upstream.merge(with: other).subscribe(second)
        upstream.send(1)
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(2))])
        XCTAssertEqual(other.history, [.request(.max(1)), .request(.max(2))])
    }

    func testFinishWaitsForQueuedValues() {
        let a = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        Publishers.MergeMany([a]).subscribe(recorder)
        a.send(1)
        a.send(2)
        a.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Merge"), .value(1)])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Merge"), .value(1), .value(2), .completion(.finished)])
    }

    func testCancelCancelsEveryUpstreamOnce() {
        let upstreams = (0..<3).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        Publishers.MergeMany(upstreams).subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        for upstream in upstreams {
            XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        }
    }

    /// Regression: the merge counted finishes, not finished upstreams, so one upstream that (wrongly) finished twice
    /// finished a merge of two while the other was still running, and a late subscription of a finished upstream
    /// was accepted. Each upstream now has a slot (awaiting, subscribed, ended) and ends once.
    func testAnUpstreamFinishingTwiceDoesNotFinishTheMerge() {
        let other = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        FinishingTwice().merge(with: other).subscribe(recorder)
        other.send(1)
        XCTAssertEqual(recorder.events, [.subscription("Merge"), .value(1)], "the other upstream still runs")
        other.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Merge"), .value(1), .completion(.finished)])
    }

    func testSynchronousUpstreamsDeliverInSubscriptionOrder() {
        let recorder = Recorder<Int, Never>()
        [1, 2].publisher.merge(with: [3].publisher, [4, 5].publisher).subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Merge"), .value(1), .value(2), .value(3), .value(4), .value(5), .completion(.finished)])
    }

    func testEmptyMergeManyFinishesAtOnce() {
        let recorder = Recorder<Int, Never>()
        Publishers.MergeMany<Just<Int>>([]).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Merge"), .completion(.finished)])
    }

    func testEveryArityDeliversEveryUpstream() {
        func values<P: Publisher>(_ publisher: P) -> [Int] where P.Output == Int, P.Failure == Never {
            let recorder = Recorder<Int, Never>()
            publisher.subscribe(recorder)
            XCTAssertEqual(recorder.completions, [.finished])
            return recorder.values
        }
        let j = (1...8).map { Just($0) }
        XCTAssertEqual(values(j[0].merge(with: j[1])), [1, 2])
        XCTAssertEqual(values(j[0].merge(with: j[1], j[2])), [1, 2, 3])
        XCTAssertEqual(values(j[0].merge(with: j[1], j[2], j[3])), [1, 2, 3, 4])
        XCTAssertEqual(values(j[0].merge(with: j[1], j[2], j[3], j[4])), [1, 2, 3, 4, 5])
        XCTAssertEqual(values(j[0].merge(with: j[1], j[2], j[3], j[4], j[5])), Array(1...6))
        XCTAssertEqual(values(j[0].merge(with: j[1], j[2], j[3], j[4], j[5], j[6])), Array(1...7))
        XCTAssertEqual(values(j[0].merge(with: j[1], j[2], j[3], j[4], j[5], j[6], j[7])), Array(1...8))
        XCTAssertEqual(values(Publishers.Merge(j[0], j[1]).merge(with: j[2])), [1, 2, 3])
        XCTAssertEqual(values(Publishers.MergeMany(j[0], j[1]).merge(with: j[2])), [1, 2, 3])
    }

    func testEquatableWhenUpstreamsAre() {
        XCTAssertEqual(Just(1).merge(with: Just(2)), Just(1).merge(with: Just(2)))
        XCTAssertNotEqual(Just(1).merge(with: Just(2)), Just(1).merge(with: Just(3)))
    }

    func testReleasesTheSubscriberAfterCancel() {
        let a = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            a.merge(with: PassthroughSubject<Int, Never>()).subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
    }
}

final class MergeConcurrencyTests: XCTestCase {
    func testEightSubjectsSendingConcurrentlyAreSerializedAndNothingIsLost() {
        let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let inside = LockedBox(0)
        let overlaps = LockedBox(0)
        let perThread = LockedBox([[Int]](repeating: [], count: 8))
        let cancellable = Publishers.MergeMany(subjects).sink { value in
            if inside.withLock({
                $0 += 1; return $0
            }) > 1 {
                overlaps.withLock { $0 += 1 }
            }
            perThread.withLock { $0[value / 100_000].append(value % 100_000) }
            inside.withLock { $0 -= 1 }
        }
        runConcurrently(threads: 8) { thread in
            for i in 0..<3_000 { subjects[thread].send(thread * 100_000 + i) }
        }
        XCTAssertEqual(overlaps.withLock { $0 }, 0)
        for thread in 0..<8 {
            XCTAssertEqual(perThread.withLock { $0[thread] }, Array(0..<3_000))
        }
        cancellable.cancel()
    }

    func testExactDemandUnderConcurrentUpstreamsAndRequests() {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Publishers.MergeMany(subjects).subscribe(recorder)
        runConcurrently(threads: 5) { thread in
            for i in 0..<1_000 {
                if thread == 4 { recorder.request(.max(1)) } else { subjects[thread].send(i) }
            }
        }
        XCTAssertLessThanOrEqual(recorder.values.count, 1_000, "never more than requested")
    }

    /// Lock inversion: the subscriber takes a user lock that another thread holds while it sends into the other
    /// upstream. If the library held its own lock across delivery (or blocked the second sender until the first
    /// delivery returned, as a recursive-lock design does), thread 1 would wait for the user lock inside delivery
    /// while thread 2 waits for the library with the user lock held: a deadlock. The merge hands thread 2's value to
    /// the delivering thread instead. (The user lock is recursive so that a sender delivering on its own thread may
    /// take it again: that part is the user's business, not the library's.)
    func testSubscriberTakingALockHeldByAnotherSenderDoesNotDeadlock() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let userLock = NSRecursiveLock()
        let received = LockedBox(0)
        let cancellable = a.merge(with: b).sink { _ in
            userLock.lock()
            received.withLock { $0 += 1 }
            userLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    a.send(i)
                } else {
                    userLock.lock()
                    b.send(i)
                    userLock.unlock()
                }
            }
        }
        // Values b sent while another thread was delivering are delivered by that thread: all 4,000 arrive.
        XCTAssertEqual(received.withLock { $0 }, 4_000)
        cancellable.cancel()
    }

    func testFailureRacingValuesDeliversOneCompletionAndNothingAfter() {
        for _ in 0..<100 {
            let a = PassthroughSubject<Int, TestError>()
            let b = PassthroughSubject<Int, TestError>()
            let recorder = Recorder<Int, TestError>()
            a.merge(with: b).subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for i in 0..<100 { a.send(i) }
                } else {
                    b.send(completion: .failure(TestError()))
                }
            }
            let events = recorder.events
            XCTAssertEqual(recorder.completions.count, 1)
            if case .completion = events.last {} else { XCTFail("completion must be last: \(events)") }
        }
    }
}

/// A publisher that breaks the protocol by finishing twice.
private struct FinishingTwice: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
        subscriber.receive(completion: .finished)
    }
}
