import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class ShareReplayTests: XCTestCase {
    func testTheUpstreamSubscriptionIsReleasedAfterUnlockingWhenTheUpstreamFinishes() {
        let record = ReleaseRecord()
        let recorder = Recorder<Int, Never>()
        ReleaseProbePublisher<Int, Never>(completion: .finished, record: record).share(replay: 1).subscribe(recorder)
        XCTAssertEqual(record.releases, [.outsideLocks])
        XCTAssertEqual(recorder.events, [.subscription("ShareReplay"), .completion(.finished)])
    }

    func testLateSubscriberGetsTheLatestValuesThenLiveOnesOverOneUpstreamSubscription() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let shared = source.share(replay: 2)
        let first = Recorder<Int, TestError>()
        shared.subscribe(first)
        source.send(1)
        source.send(2)
        source.send(3)
        let second = Recorder<Int, TestError>()
        shared.subscribe(second)
        source.send(4)
        source.finish()
        XCTAssertEqual(
            first.events,
            [.subscription("ShareReplay"), .value(1), .value(2), .value(3), .value(4), .completion(.finished)])
        XCTAssertEqual(
            second.events, [.subscription("ShareReplay"), .value(2), .value(3), .value(4), .completion(.finished)])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited)])
    }

    func testReplayRespectsDemandAndKeepsTheNewestValuesBeyondIt() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share(replay: 2)
        let feeder = Recorder<Int, Never>()
        shared.subscribe(feeder)
        subject.send(1)
        subject.send(2)
        let slow = Recorder<Int, Never>(initialDemand: .max(1))
        shared.subscribe(slow)
        XCTAssertEqual(slow.values, [1])
        subject.send(3)
        subject.send(4)  // slow has no demand: keeps the newest 2 it has not received (3, 4); 2 is dropped
        slow.request(.max(5))
        XCTAssertEqual(slow.values, [1, 3, 4])
        subject.send(5)
        XCTAssertEqual(slow.values, [1, 3, 4, 5])
    }

    func testReplayZeroBehavesLikeShareWithoutReplay() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share(replay: 0)
        let a = Recorder<Int, Never>()
        shared.subscribe(a)
        subject.send(1)
        let b = Recorder<Int, Never>(initialDemand: nil)
        shared.subscribe(b)
        subject.send(2)
        b.request(.max(1))
        subject.send(3)
        XCTAssertEqual(a.values, [1, 2, 3])
        XCTAssertEqual(b.values, [3], "values without demand are dropped when nothing is replayed")
    }

    func testLastCancelDisconnectsAndTheNextSubscriberReconnectsWithAnEmptyBuffer() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let shared = source.share(replay: 1)
        let a = Recorder<Int, TestError>()
        let b = Recorder<Int, TestError>()
        shared.subscribe(a)
        shared.subscribe(b)
        source.send(1)
        a.cancel()
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited)], "one subscriber left")
        b.cancel()
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
        let c = Recorder<Int, TestError>()
        shared.subscribe(c)
        source.send(2)
        XCTAssertEqual(c.events, [.subscription("ShareReplay"), .value(2)], "the buffer was emptied on disconnect")
        XCTAssertEqual(source.subscriptions, 2)
    }

    /// A `share(replay: 1)` over a `HoldingPublisher` whose first connection was made (its subscriber given a
    /// subscription) and then ended by the cancel of its only subscriber.
    private func sharedAfterItsFirstConnectionEnded() throws -> (
        upstream: HoldingPublisher<Int, Never>, shared: Publishers.ShareReplay<HoldingPublisher<Int, Never>>,
        first: Recorder<Int, Never>, oldInner: AnySubscriber<Int, Never>, oldSubscription: LoggingSubscription
    ) {
        let upstream = HoldingPublisher<Int, Never>()
        let shared = upstream.share(replay: 1)
        let first = Recorder<Int, Never>()
        shared.subscribe(first)
        let oldInner = try XCTUnwrap(upstream.subscriber)
        let oldSubscription = LoggingSubscription()
        oldInner.receive(subscription: oldSubscription)
        first.cancel()
        return (upstream, shared, first, oldInner, oldSubscription)
    }

    func testASubscriptionArrivingForAnEndedConnectionOrASecondTimeIsCancelled() throws {
        let (upstream, shared, first, oldInner, oldSubscription) = try sharedAfterItsFirstConnectionEnded()
        XCTAssertEqual(oldSubscription.log, ["request(unlimited)", "cancel"], "asked, then the last subscriber left")

        let second = Recorder<Int, Never>()
        shared.subscribe(second)
        let newInner = try XCTUnwrap(upstream.subscriber)
        let late = LoggingSubscription()
        oldInner.receive(subscription: late)
        XCTAssertEqual(late.log, ["cancel"], "the first connection ended: its subscriber takes no subscription")
        let current = LoggingSubscription()
        let extra = LoggingSubscription()
        newInner.receive(subscription: current)
        newInner.receive(subscription: extra)
        XCTAssertEqual(current.log, ["request(unlimited)"])
        XCTAssertEqual(extra.log, ["cancel"])
        _ = newInner.receive(7)
        XCTAssertEqual(second.events, [.subscription("ShareReplay"), .value(7)])
        XCTAssertEqual(first.events, [.subscription("ShareReplay")])
    }

    // ReactiveX/RxSwift 97f18437 (3.2's "events emitted after disconnect are ignored even in case of fast
    // reconnect"): what the source of a disconnected connection still sent reached the next connection's subscribers.
    // The old connection's late value and completion go nowhere: not to the new subscriber, not into the replay.
    func testLateSignalsOfADisconnectedConnectionDoNotReachTheNextConnection() throws {
        let (upstream, shared, first, oldInner, _) = try sharedAfterItsFirstConnectionEnded()
        let second = Recorder<Int, Never>()
        shared.subscribe(second)
        let newInner = try XCTUnwrap(upstream.subscriber)
        newInner.receive(subscription: LoggingSubscription())
        _ = oldInner.receive(99)
        oldInner.receive(completion: .finished)
        _ = newInner.receive(7)
        let third = Recorder<Int, Never>()
        shared.subscribe(third)
        XCTAssertEqual(first.events, [.subscription("ShareReplay")])
        XCTAssertEqual(second.events, [.subscription("ShareReplay"), .value(7)])
        XCTAssertEqual(third.events, [.subscription("ShareReplay"), .value(7)], "the replay holds the new value only")
    }

    func testCompletionIsForwardedAndTheNextSubscriberResubscribes() {
        var subscriptions = 0
        let shared = Deferred { () -> Publishers.Sequence<[Int], Never> in
            subscriptions += 1
            return [10, 20].publisher
        }.share(replay: 1)
        let a = Recorder<Int, Never>()
        shared.subscribe(a)
        let b = Recorder<Int, Never>()
        shared.subscribe(b)
        XCTAssertEqual(a.events, [.subscription("ShareReplay"), .value(10), .value(20), .completion(.finished)])
        XCTAssertEqual(b.events, [.subscription("ShareReplay"), .value(10), .value(20), .completion(.finished)])
        XCTAssertEqual(subscriptions, 2)
    }

    func testFailureReachesEverySubscriberAfterItsWaitingValues() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let shared = source.share(replay: 1)
        let a = Recorder<Int, TestError>()
        let b = Recorder<Int, TestError>(initialDemand: nil)
        shared.subscribe(a)
        shared.subscribe(b)
        source.send(7)
        source.send(completion: .failure(TestError(1)))
        XCTAssertEqual(a.events, [.subscription("ShareReplay"), .value(7), .completion(.failure(TestError(1)))])
        XCTAssertEqual(
            b.events, [.subscription("ShareReplay")], "the completion waits behind the value b has not requested")
        b.request(.max(1))
        XCTAssertEqual(b.events, [.subscription("ShareReplay"), .value(7), .completion(.failure(TestError(1)))])
    }

    func testCancelInsideReceiveSubscriptionDoesNotLeaveAConnection() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let shared = source.share(replay: 1)
        let quitter = Recorder<Int, TestError>(initialDemand: nil, onSubscription: { $1.cancel() })
        shared.subscribe(quitter)
        XCTAssertEqual(source.history, [.subscribed, .cancel])
        XCTAssertEqual(quitter.events, [.subscription("ShareReplay")])
    }

    func testReentrantRequestAndReleaseAfterCancel() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let shared = subject.share(replay: 1)
        var subscription: Subscription?
        var received: [Int] = []
        shared.subscribe(
            AnySubscriber(
                receiveSubscription: {
                    subscription = $0
                    $0.request(.max(1))
                },
                receiveValue: { value in
                    received.append(value)
                    subscription?.request(.max(1))
                    return .none
                }, receiveCompletion: { _ in }))
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(received, [0, 1, 2])
        subscription?.cancel()

        weak var weakRecorder: Recorder<Token, Never>?
        weak var weakValue: Token?
        let witnesses = PassthroughSubject<Token, Never>()
        let sharedWitnesses = witnesses.share(replay: 1)
        do {
            let recorder = Recorder<Token, Never>()
            weakRecorder = recorder
            sharedWitnesses.subscribe(recorder)
            let witness = Token()
            weakValue = witness
            witnesses.send(witness)
            recorder.cancel()
        }
        XCTAssertNil(weakRecorder, "cancel releases the subscriber")
        XCTAssertNil(weakValue, "disconnecting releases the replay buffer")
    }

    func testIsEquatableByIdentity() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share(replay: 1)
        XCTAssertEqual(shared, shared)
        XCTAssertNotEqual(shared, subject.share(replay: 1))
    }
}

final class ShareReplayConcurrencyTests: XCTestCase {
    func testSubscribersJoiningWhileValuesFlowSeeAGaplessSuffixInOrder() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share(replay: 3)
        let anchor = shared.sink { _ in }
        let recorders = LockedRecorders()
        // Every value goes to every subscriber joined so far (about 100,000 deliveries): under ThreadSanitizer on a
        // loaded 2-core machine that took up to 63 s, so the watchdog only catches a real hang.
        runConcurrently(threads: 4, timeout: 300) { thread in
            if thread == 0 {
                for i in 0..<2_000 { subject.send(i) }
            } else {
                for _ in 0..<35 {
                    let detector = OverlapDetector()
                    let recorder = Recorder<Int, Never>(onValue: { _, _ in
                        detector.enter()
                        detector.leave()
                        return .none
                    })
                    shared.subscribe(recorder)
                    recorders.append(recorder, detector)
                }
            }
        }
        subject.send(completion: .finished)
        for (recorder, detector) in recorders.all {
            let values = recorder.values
            XCTAssertEqual(detector.overlaps, 0)
            if let first = values.first {
                XCTAssertEqual(values, Array(first..<2_000), "a contiguous suffix: replay then live, no gap")
            }
            XCTAssertEqual(recorder.events.last, .completion(.finished))
        }
        withExtendedLifetime(anchor) {}
    }

    func testRequestsFromOtherThreadsWhileTheUpstreamSendsLoseNothingDemandAllowed() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share(replay: 1_000)
        let detector = OverlapDetector()
        let recorder = Recorder<Int, Never>(initialDemand: nil, onValue: { _, _ in detector.around { .none } })
        shared.subscribe(recorder)
        runConcurrently(threads: 3) { thread in
            if thread == 0 {
                for i in 0..<1_000 { subject.send(i) }
            } else {
                for _ in 0..<500 { recorder.request(.max(1)) }
            }
        }
        XCTAssertEqual(recorder.values, Array(0..<1_000))
        XCTAssertEqual(detector.overlaps, 0)
    }

    // ReactiveX/RxSwift 4ba063f8 (issue 1323): share(replay:) kept its lock while its source ran the subscription,
    // so a source that published there and then waited for work another thread delivers through the shared stream
    // (a flatMap's inner) deadlocked. Nothing waits on a library lock here, whatever the replay size.
    func testASourceWaitingInsideItsSubscriptionForAnotherThreadsDeliveryDoesNotDeadlock() {
        for replay in [0, 1, 2] {
            let innerDelivered = DispatchSemaphore(value: 0)
            let source = AnyPublisher<Int, Never>.create { subscriber in
                subscriber.send(1)
                _ = innerDelivered.wait(timeout: .now() + 30)
                subscriber.send(completion: .finished)
                return AnyCancellable {}
            }
            let recorder = Recorder<Int, Never>()
            source.share(replay: replay)
                .flatMap { value in
                    AnyPublisher<Int, Never>.create { inner in
                        DispatchQueue.global().async {
                            inner.send(value * 10)
                            inner.send(completion: .finished)
                        }
                        return AnyCancellable {}
                    }
                }
                .handleEvents(receiveOutput: { _ in innerDelivered.signal() })
                .subscribe(recorder)
            recorder.waitForCompletion()
            XCTAssertEqual(recorder.values, [10], "replay \(replay)")
            XCTAssertEqual(recorder.completions, [.finished], "replay \(replay)")
        }
    }

    // ReactiveX/RxSwift 4cffbf77, 41856c63 and 4e63a6e5 (issue 2653, tests b96fe940): share(replay:) of a source that
    // publishes as soon as it is subscribed deadlocked under many concurrent first subscribers, the replay running
    // under a lock; it also connected more than once. Each subscriber takes the one value and leaves, so the shared
    // stream connects, disconnects and reconnects all the time: every subscriber gets the value and finishes.
    func testConcurrentSubscribersToASourceThatPublishesWhenSubscribedEachGetItsValue() {
        for replay in [1, 2] {
            let shared = AnyPublisher<Int, Never>.create { subscriber in
                subscriber.send(7)
                return AnyCancellable {}
            }.share(replay: replay)
            let served = Counter()
            runConcurrently(threads: 8, timeout: 120) { _ in
                for _ in 0..<100 {
                    let recorder = Recorder<Int, Never>()
                    shared.prefix(1).subscribe(recorder)
                    recorder.waitForCompletion()
                    if recorder.values == [7] { _ = served.increment() }
                }
            }
            XCTAssertEqual(served.value, 800, "replay \(replay)")
        }
    }

    // ReactiveX/RxSwift 8fa6b7f5 (issue 936): shared timers on a concurrent queue, one switched into the other by
    // flatMapLatest, deadlocked through the subjects' locks. Ten such pipelines at once, each taking ten values,
    // all finish.
    func testSharedTimersOnAConcurrentQueueSwitchedByFlatMapLatestAllFinish() {
        let queue = DispatchQueue(label: "ShareReplayConcurrencyTests.timers", attributes: .concurrent)
        @Sendable func ticks(every milliseconds: Int) -> AnyPublisher<Int, Never> {
            Publishers.Interval(.milliseconds(milliseconds), scheduler: queue).share(replay: 1).eraseToAnyPublisher()
        }
        let recorders = (0..<10).map { _ in Recorder<Int, Never>() }
        for recorder in recorders {
            queue.async {
                ticks(every: 5).flatMapLatest { outer in ticks(every: 1).map { outer * 1_000 + $0 } }
                    .prefix(10)
                    .subscribe(recorder)
            }
        }
        for recorder in recorders {
            recorder.waitForCompletion(timeout: 60)
            XCTAssertEqual(recorder.values.count, 10)
            XCTAssertEqual(recorder.completions, [.finished])
        }
    }

    func testConcurrentSubscribeAndCancelKeepsAtMostOneConnection() {
        let source = ManualPublisher<Int, Never>(recordsSubscriptions: true)
        let shared = source.share(replay: 1)
        runConcurrently(threads: 4) { _ in
            for _ in 0..<200 {
                let recorder = Recorder<Int, Never>()
                shared.subscribe(recorder)
                recorder.cancel()
            }
        }
        let history = source.history
        let subscribed = history.filter { $0 == .subscribed }.count
        let cancelled = history.filter { $0 == .cancel }.count
        XCTAssertEqual(subscribed, cancelled, "every connection was cancelled when its last subscriber left")
    }

    func testLockInversionWithUserLockHeldWhileSending() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share(replay: 1)
        let userLock = NSRecursiveLock()
        let count = Counter()
        let a = shared.sink { _ in
            userLock.lock()
            count.add(1)
            userLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<1_000 {
                if thread == 0 {
                    userLock.lock()
                    subject.send(i)
                    userLock.unlock()
                } else {
                    let late = shared.sink { _ in
                        userLock.lock()
                        userLock.unlock()
                    }
                    late.cancel()
                }
            }
        }
        XCTAssertEqual(count.value, 1_000)
        withExtendedLifetime(a) {}
    }
}

/// Recorders collected from several threads.
private final class LockedRecorders: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Recorder<Int, Never>, OverlapDetector)] = []
    func append(_ recorder: Recorder<Int, Never>, _ detector: OverlapDetector) {
        lock.lock()
        items.append((recorder, detector))
        lock.unlock()
    }
    var all: [(Recorder<Int, Never>, OverlapDetector)] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension ShareReplayTests {
    // CombineCommunity/CombineExt 98ff2ad: zipping a shared synchronous publisher with itself lost the second
    // side's value (it subscribed after the first side had finished the shared connection).
    func testZippingASharedJustWithItselfPairsAndFinishes() {
        let shared = Just(1).eraseToAnyPublisher().share(replay: 1)
        let recorder = Recorder<String, Never>()
        shared.zip(shared).map { "\($0)-\($1)" }.subscribe(recorder)
        XCTAssertEqual(recorder.values, ["1-1"])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    // CombineCommunity/CombineExt 730d272 (pull request 86): share(replay:) kept a class-based source alive after
    // it finished and every subscriber and the shared publisher were gone.
    func testTheSourceIsReleasedOnceTheSharedStreamEndedAndIsGone() {
        weak var weakSource: PassthroughSubject<Int, Never>?
        let recorder = Recorder<Int, Never>()
        do {
            let source = PassthroughSubject<Int, Never>()
            weakSource = source
            let shared = source.share(replay: 1)
            shared.subscribe(recorder)
            source.send(1)
            source.send(completion: .finished)
        }
        recorder.cancel()
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions, [.finished])
        XCTAssertNil(weakSource)
    }
}

extension ShareReplayConcurrencyTests {
    // ReactiveX/RxSwift 5960b8dd and 6e1ad1a8 (issue 2718): concurrent first subscribers to share(replay:) each
    // connected the source (or deadlocked); one connection is made, and every subscriber gets the values.
    func testConcurrentFirstSubscribersConnectOnce() {
        for replay in [0, 1] {
            for _ in 0..<50 {
                let source = ManualPublisher<Int, Never>(recordsSubscriptions: true)
                let shared = source.share(replay: replay)
                let recorders = (0..<8).map { _ in Recorder<Int, Never>() }
                runConcurrently(threads: 8) { thread in shared.subscribe(recorders[thread]) }
                XCTAssertEqual(source.subscriptions, 1, "replay \(replay): connected exactly once")
                source.send(7)
                for recorder in recorders { XCTAssertEqual(recorder.values, [7]) }
                runConcurrently(threads: 8) { thread in recorders[thread].cancel() }
                XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel], "torn down once")
            }
        }
    }
}
