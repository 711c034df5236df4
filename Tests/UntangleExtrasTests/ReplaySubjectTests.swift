import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class ReplaySubjectTests: XCTestCase {
    func testNewSubscriberReceivesTheLastBufferSizeValuesThenLiveValues() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        let recorder = Recorder<Int, TestError>()
        subject.subscribe(recorder)
        subject.send(4)
        XCTAssertEqual(recorder.events, [.subscription("ReplaySubject"), .value(2), .value(3), .value(4)])
        XCTAssertEqual(subject.bufferSize, 2)
    }

    // Each subscription dispatches a send through entry points made for its own subscriber type: subscribers of
    // different types on one subject must each get their own replay and every live value, in order.
    func testSubscribersOfDifferentTypesEachGetTheReplayAndEverySend() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        subject.send(1)
        let recorder = Recorder<Int, Never>()
        subject.subscribe(recorder)
        var sunk: [Int] = []
        let cancellable = subject.sink { sunk.append($0) }
        let mapped = Recorder<String, Never>()
        subject.map(String.init).subscribe(mapped)
        subject.send(2)
        subject.send(3)
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(sunk, [1, 2, 3])
        XCTAssertEqual(mapped.values, ["1", "2", "3"])
        cancellable.cancel()
        subject.send(4)
        XCTAssertEqual(sunk, [1, 2, 3], "nothing after cancel")
        XCTAssertEqual(recorder.values, [1, 2, 3, 4])
    }

    func testUnboundedReplaysEverything() {
        let subject = ReplaySubject<Int, Never>.unbounded()
        (0..<1_000).forEach(subject.send)
        let recorder = Recorder<Int, Never>()
        subject.subscribe(recorder)
        XCTAssertEqual(recorder.values, Array(0..<1_000))
    }

    func testBufferSizeZeroBehavesLikePassthrough() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 0)
        subject.send(1)
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        subject.subscribe(recorder)
        subject.send(2)
        subject.send(3)
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.events, [.subscription("ReplaySubject"), .value(2)])
    }

    func testReplayRespectsDemand() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 3)
        [1, 2, 3].forEach(subject.send)
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        subject.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("ReplaySubject")])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [1, 2])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    func testSubscriberWithoutDemandKeepsTheNewestBufferSizeValues() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 2)
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        subject.subscribe(recorder)
        (1...6).forEach(subject.send)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.values, [1, 5, 6], "what a late subscriber would see: the newest two")
    }

    /// A send that drops a value from the replay buffer and from several subscribers' waiting values releases it
    /// after leaving the locks; a send that several subscribers take at once (each owned by the sender) reaches
    /// every one of them.
    func testDroppedValuesAreReleasedOutsideTheLocksAndEverySubscriberGetsEachSend() {
        var releases: [String] = []
        let subject = ReplaySubject<ReleasedValue, Never>(bufferSize: 1)
        let waiting = (0..<3).map { _ in Recorder<ReleasedValue, Never>(initialDemand: nil) }
        waiting.forEach { subject.subscribe($0) }
        for id in 1...3 {
            subject.send(ReleasedValue(id) { releases.append($0) })
        }
        // Each send drops the previous value from the replay buffer and from the three subscribers' waiting values.
        XCTAssertEqual(releases, ["1 outside locks", "2 outside locks"])
        let live = (0..<3).map { _ in Recorder<ReleasedValue, Never>() }
        live.forEach { subject.subscribe($0) }
        subject.send(ReleasedValue(4) { releases.append($0) })
        XCTAssertEqual(live.map { $0.values.map(\.id) }, Array(repeating: [3, 4], count: 3))
        waiting.forEach { $0.request(.unlimited) }
        XCTAssertEqual(waiting.map { $0.values.map(\.id) }, Array(repeating: [4], count: 3))
        XCTAssertEqual(releases, ["1 outside locks", "2 outside locks"], "the live subscribers still hold 3")
    }

    /// A send that owns some subscribers' emitters but finds another one waiting for demand in between delivers to
    /// exactly the owned ones, each once, in their order, and leaves the value queued for the other.
    func testASendDeliversToTheSubscribersAroundOneWithoutDemand() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        let first = Recorder<Int, Never>()
        let waiting = Recorder<Int, Never>(initialDemand: nil)
        let last = Recorder<Int, Never>()
        [first, waiting, last].forEach { subject.subscribe($0) }
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(first.values, [1, 2])
        XCTAssertEqual(last.values, [1, 2])
        XCTAssertEqual(waiting.values, [])
        waiting.request(.unlimited)
        XCTAssertEqual(waiting.values, [2], "the newest waiting value")
    }

    func testDemandReturnedFromReceiveIsHonoured() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 5)
        (1...5).forEach(subject.send)
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, value in value < 3 ? .max(1) : .none }
        subject.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    func testCompletionFollowsTheBufferedValuesAndLateSubscribersGetReplayThenCompletion() {
        let subject = ReplaySubject<Int, TestError>(bufferSize: 2)
        let early = Recorder<Int, TestError>(initialDemand: nil)
        subject.subscribe(early)
        [1, 2, 3].forEach(subject.send)
        subject.send(completion: .failure(TestError(3)))
        subject.send(completion: .finished)
        subject.send(4)
        XCTAssertEqual(early.events, [.subscription("ReplaySubject")])
        early.request(.max(1))
        XCTAssertEqual(early.events, [.subscription("ReplaySubject"), .value(2)])
        early.request(.max(1))
        XCTAssertEqual(
            early.events, [.subscription("ReplaySubject"), .value(2), .value(3), .completion(.failure(TestError(3)))])

        let late = Recorder<Int, TestError>()
        subject.subscribe(late)
        XCTAssertEqual(
            late.events, [.subscription("ReplaySubject"), .value(2), .value(3), .completion(.failure(TestError(3)))])
    }

    func testCancelStopsDeliveryIsIdempotentAndReleasesTheSubscriber() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.subscribe(recorder)
            subject.send(1)
            subscription = recorder.subscription
            XCTAssertEqual(recorder.values, [1])
        }
        subscription?.cancel()
        subscription?.cancel()
        subject.send(2)
        XCTAssertNil(weakRecorder)
        _ = subscription
    }

    // Both subscribers have unlimited demand, so each send claims both emitters without their locks: the claim
    // must still be withdrawn by a cancel made before the value reaches the subscriber, here on the same thread.
    func testASubscriberCancelledByAnothersReceiveDuringASendGetsNothingMore() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        var second: Recorder<Int, Never>?
        let first = Recorder<Int, Never> { _, value in
            if value == 2 { second?.cancel() }
            return .none
        }
        let recorder = Recorder<Int, Never>()
        second = recorder
        subject.subscribe(first)
        subject.subscribe(recorder)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        XCTAssertEqual(first.values, [1, 2, 3])
        XCTAssertEqual(recorder.values, [1], "2 was accepted for it before the cancel, and dropped")
    }

    func testCompletionReleasesTheSubscriber() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        weak var weakRecorder: Recorder<Int, Never>?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.subscribe(recorder)
        }
        subject.send(completion: .finished)
        XCTAssertNil(weakRecorder)
    }

    func testSubscriptionDoesNotKeepTheSubjectAlive() {
        weak var weakSubject: ReplaySubject<Int, Never>?
        let recorder = Recorder<Int, Never>()
        do {
            let subject = ReplaySubject<Int, Never>(bufferSize: 1)
            weakSubject = subject
            subject.subscribe(recorder)
        }
        XCTAssertNil(weakSubject)
        recorder.cancel()
    }

    func testReentrantSendFromReceiveIsDeliveredInOrder() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 10)
        let recorder = Recorder<Int, Never> { _, value in
            if value < 3 { subject.send(value + 1) }
            return .none
        }
        subject.subscribe(recorder)
        subject.send(0)
        XCTAssertEqual(recorder.values, [0, 1, 2, 3])
    }

    func testSendSubscriptionRequestsUnlimitedAndTheSubjectRelaysUpstreamValues() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(5)
        let recorder = Recorder<Int, Never>()
        subject.subscribe(recorder)
        XCTAssertEqual(recorder.values, [5])
        connection.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testReplayOfTheSubscribingSubscriberComesBeforeValuesSentFromItsReceive() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 2)
        [1, 2].forEach(subject.send)
        let recorder = Recorder<Int, Never> { _, value in
            if value == 1 { subject.send(3) }
            return .none
        }
        subject.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    /// Regression (Apple's subjects' behaviour, issue 29): the subject keeps every subscription it is handed (asking
    /// each for `.unlimited` at once), through its completion, and also one handed over after it, until the subject
    /// goes away and cancels each.
    func testUpstreamSubscriptionsAreKeptAliveAfterTheCompletionUntilTheSubjectGoes() {
        assertAsksAtOnceAndKeepsUpstreamsUntilItGoes { ReplaySubject<Int, Never>(bufferSize: 1) }
    }
}

final class ReplaySubjectConcurrencyTests: XCTestCase {
    /// 8 threads send; every subscriber sees every value once, one call at a time, each thread's values in order,
    /// and all subscribers see the same order (the subject's).
    func testEightSendingThreadsAreSerializedLoseNothingAndAgreeOnTheOrder() {
        let subject = ReplaySubject<Int, Never>.unbounded()
        let detectors = [OverlapDetector(), OverlapDetector()]
        let seen = [LockedBox<[Int]>([]), LockedBox<[Int]>([])]
        let cancellables = (0..<2).map { index in
            subject.sink { value in detectors[index].around { seen[index].withLock { $0.append(value) } } }
        }
        runConcurrently(threads: 8) { thread in
            for i in 0..<1_000 { subject.send(thread * 100_000 + i) }
        }
        let late = Recorder<Int, Never>()
        subject.subscribe(late)
        for index in 0..<2 {
            XCTAssertEqual(detectors[index].overlaps, 0)
            let values = seen[index].withLock { $0 }
            XCTAssertEqual(values.count, 8_000)
            for thread in 0..<8 {
                XCTAssertEqual(values.filter { $0 / 100_000 == thread }.map { $0 % 100_000 }, Array(0..<1_000))
            }
            XCTAssertEqual(values, late.values, "every subscriber sees the replay buffer's order")
        }
        cancellables.forEach { $0.cancel() }
    }

    /// Subscribing while 8 threads send: a subscriber sees the whole history (replay, then live values) in the
    /// subject's order, with nothing lost and nothing duplicated at the seam between them.
    func testSubscribingWhileSendingSeesAGapFreeSuffix() {
        // Unbounded, so that values sent between a subscriber's registration and its first request are kept (a
        // bounded subject keeps only the newest `bufferSize` of them, as documented).
        let subject = ReplaySubject<Int, Never>.unbounded()
        let recorders = LockedBox<[Recorder<Int, Never>]>([])
        runConcurrently(threads: 8) { thread in
            for i in 0..<500 {
                if thread < 2, i % 50 == 0 {
                    let recorder = Recorder<Int, Never>()
                    subject.subscribe(recorder)
                    recorders.withLock { $0.append(recorder) }
                }
                subject.send(thread * 100_000 + i)
            }
        }
        let all = Recorder<Int, Never>()
        subject.subscribe(all)
        for recorder in recorders.withLock({ $0 }) {
            let values = recorder.values
            XCTAssertEqual(Set(values).count, values.count, "duplicate at the replay/live seam")
            XCTAssertEqual(values, all.values, "the subject's order")
            for thread in 0..<8 {
                let mine = values.filter { $0 / 100_000 == thread }.map { $0 % 100_000 }
                XCTAssertEqual(mine, Array(0..<500), "gap in thread \(thread)'s values")
            }
            recorder.cancel()
        }
        all.cancel()
    }

    /// One-at-a-time demand from another thread while 8 threads send into an unbounded subject: nothing lost,
    /// never beyond demand, never overlapping.
    func testRequestsRacingSendsNeverExceedDemandAndLoseNothing() {
        let subject = ReplaySubject<Int, Never>.unbounded()
        let detector = OverlapDetector()
        let outstanding = LockedBox(0)
        let excess = Counter()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in
            detector.around {
                if outstanding.withLock({
                    $0 -= 1; return $0
                }) < 0 {
                    excess.increment()
                }
            }
            return .none
        }
        subject.subscribe(recorder)
        runConcurrently(threads: 9) { thread in
            if thread == 8 {
                for _ in 0..<4_000 {
                    outstanding.withLock { $0 += 1 }
                    recorder.request(.max(1))
                }
            } else {
                for i in 0..<500 { subject.send(thread * 1_000 + i) }
            }
        }
        XCTAssertEqual(detector.overlaps, 0)
        XCTAssertEqual(excess.value, 0)
        XCTAssertEqual(Set(recorder.values).count, 4_000)
        recorder.cancel()
    }

    /// Completion racing sends: every subscriber gets at most one completion, last, and what it got before the
    /// completion is a prefix of the subject's replay order.
    func testCompletionRacingSendsIsDeliveredOnceAndLast() {
        for _ in 0..<100 {
            let subject = ReplaySubject<Int, TestError>.unbounded()
            let recorder = Recorder<Int, TestError>()
            subject.subscribe(recorder)
            runConcurrently(threads: 3) { thread in
                if thread == 2 {
                    subject.send(completion: .failure(TestError()))
                } else {
                    for i in 0..<100 { subject.send(thread * 1_000 + i) }
                }
            }
            let late = Recorder<Int, TestError>()
            subject.subscribe(late)
            XCTAssertEqual(recorder.events, late.events, "an existing subscriber sees what the replay says")
            XCTAssertEqual(recorder.completions, [.failure(TestError())])
        }
    }

    /// Lock inversion: a sender holds a user lock the subscriber takes on another thread.
    func testSubscriberTakingALockHeldByASenderDoesNotDeadlock() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 4)
        let foreign = NSRecursiveLock()
        let seen = Counter()
        let cancellable = subject.sink { _ in
            foreign.lock()
            seen.increment()
            foreign.unlock()
        }
        runConcurrently(threads: 4, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    foreign.lock()
                    subject.send(i)
                    foreign.unlock()
                } else {
                    subject.send(i)
                }
            }
        }
        XCTAssertEqual(seen.value, 8_000)
        cancellable.cancel()
    }

    // ReactiveX/RxSwift 4e63a6e5 and 164bb705 (issue 2713): the buffer was replayed under the subject's lock, so a
    // subscriber whose replay waits for a lock of its own deadlocked against a thread that holds that lock and
    // subscribes to the same subject. The replay runs with no library lock held: the second subscription goes
    // through, the holder lets go of its lock, and the replay gets it.
    func testAReplayWaitingForALockHeldByAnotherSubscribingThreadDoesNotDeadlock() {
        for _ in 0..<3 {
            let subject = ReplaySubject<Int, Never>(bufferSize: 1)
            subject.send(1)
            let foreign = NSLock()
            let holderLocked = DispatchSemaphore(value: 0)
            let replayStarted = DispatchSemaphore(value: 0)
            let replaysThatGotTheLock = Counter()
            runConcurrently(threads: 2, timeout: 60) { thread in
                if thread == 0 {
                    foreign.lock()
                    holderLocked.signal()
                    _ = replayStarted.wait(timeout: .now() + 30)
                    let late = subject.sink { _ in }
                    foreign.unlock()
                    late.cancel()
                } else {
                    _ = holderLocked.wait(timeout: .now() + 30)
                    let replayed = subject.sink { _ in
                        replayStarted.signal()
                        foreign.lock()
                        _ = replaysThatGotTheLock.increment()
                        foreign.unlock()
                    }
                    replayed.cancel()
                }
            }
            XCTAssertEqual(replaysThatGotTheLock.value, 1)
        }
    }

    /// Lock inversion at subscribe time: the replay is delivered outside the subject's lock, so a subscriber that
    /// sends into the subject from its replay (on the subscribing thread) while other threads send cannot deadlock.
    func testReplayDeliveredOutsideTheLockAllowsSendingFromReplay() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 8)
        (0..<8).forEach(subject.send)
        withWatchdog("subscribers sending from their replay while others send") {
            runConcurrently(threads: 4, timeout: 60) { thread in
                for _ in 0..<200 {
                    if thread < 2 {
                        let cancellable = subject.sink { value in
                            if value < 0 { subject.send(value + 1) }
                        }
                        subject.send(-1)
                        cancellable.cancel()
                    } else {
                        subject.send(thread)
                    }
                }
            }
        }
    }
}

/// A value that reports, when released, whether a library lock was held (debug builds count them).
private final class ReleasedValue {
    let id: Int
    let onRelease: (String) -> Void

    init(_ id: Int, onRelease: @escaping (String) -> Void) {
        self.id = id
        self.onRelease = onRelease
    }

    deinit {
        onRelease("\(id) " + (CalloutCheck.heldByCurrentThread == 0 ? "outside locks" : "under a lock"))
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension ReplaySubjectTests {
    // CombineCommunity/CombineExt 5bd0d0f (pull request 28): one subscriber subscribed twice (through two chains) to
    // a finished ReplaySubject got the replay only once.
    func testOneSubscriberSubscribedTwiceGetsTheReplayAndTheCompletionTwice() {
        let subject = ReplaySubject<Int, Never>(bufferSize: 1)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        let recorder = Recorder<String, Never>(initialDemand: .max(1))
        subject.map { "a\($0)" }.subscribe(recorder)
        subject.map { "b\($0)" }.subscribe(recorder)
        XCTAssertEqual(recorder.values, ["a2", "b2"])
        XCTAssertEqual(recorder.completions, [.finished, .finished])
    }
}
