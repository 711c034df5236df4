import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class WithLatestFromTests: XCTestCase {
    func testCombinesEachValueWithTheLatestOtherValueAndDropsValuesBeforeTheFirst() {
        let upstream = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let other = ManualPublisher<String, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<String, TestError>()
        upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(recorder)

        XCTAssertEqual(upstream.send(1), .max(1), "a value before the other's first is replaced by a request")
        other.send("a")
        upstream.send(2)
        other.send("b")
        other.send("c")
        upstream.send(3)
        upstream.finish()

        XCTAssertEqual(
            recorder.events, [.subscription("WithLatestFrom"), .value("2a"), .value("3c"), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.subscribed, .request(.unlimited)])
        XCTAssertEqual(other.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testWithoutSelectorEmitsTheOtherValueAndOtherFinishingKeepsTheLatest() {
        let upstream = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let other = ManualPublisher<String, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<String, TestError>()
        upstream.withLatestFrom(other).subscribe(recorder)
        other.send("x")
        other.finish()
        upstream.send(1)
        upstream.send(2)
        XCTAssertEqual(recorder.events, [.subscription("WithLatestFrom"), .value("x"), .value("x")])
        XCTAssertEqual(other.history, [.subscribed, .request(.unlimited)])
    }

    func testTwoAndThreeOthers() {
        let upstream = PassthroughSubject<Int, Never>()
        let a = CurrentValueSubject<Int, Never>(1)
        let b = CurrentValueSubject<String, Never>("b")
        let c = PassthroughSubject<Double, Never>()
        var pairs: [String] = []
        var triples: [String] = []
        let one = upstream.withLatestFrom(a, b).sink { pairs.append("\($0)\($1)") }
        let two = upstream.withLatestFrom(a, b, c) { u, l in "\(u):\(l.0)\(l.1)\(l.2)" }.sink { triples.append($0) }
        upstream.send(0)
        c.send(0.5)
        a.send(2)
        upstream.send(9)
        XCTAssertEqual(pairs, ["1b", "2b"])
        XCTAssertEqual(triples, ["9:2b0.5"])
        let selected = upstream.withLatestFrom(a, b) { u, l in u + l.0 }.sink { pairs.append("\($0)") }
        upstream.send(10)
        XCTAssertEqual(pairs, ["1b", "2b", "2b", "12"])
        withExtendedLifetime((one, two, selected)) {}
    }

    // ReactiveX/RxSwift 7ade18ba: withLatestFrom subscribed to its upstream before the other publisher, so two
    // publishers that both publish a current value when subscribed gave nothing: the upstream's value arrived while
    // the other had none yet. The other is subscribed first, so the upstream's current value finds the other's.
    func testTheOtherIsSubscribedFirstSoTwoCurrentValuesCombineAtOnce() {
        let upstream = CurrentValueSubject<Int, Never>(3)
        let other = CurrentValueSubject<Int, Never>(5)
        let recorder = Recorder<String, Never>()
        upstream.withLatestFrom(other) { "\($0)\($1)" }.prefix(1).subscribe(recorder)
        XCTAssertEqual(recorder.values, ["35"])
        XCTAssertEqual(recorder.completions, [.finished])

        let order = LockedBox<[String]>([])
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let both = Recorder<Int, Never>()
        first.handleEvents(receiveSubscription: { _ in order.withLock { $0.append("upstream") } })
            .withLatestFrom(second.handleEvents(receiveSubscription: { _ in order.withLock { $0.append("other") } }))
            .subscribe(both)
        XCTAssertEqual(order.withLock { $0 }, ["other", "upstream"])
    }

    func testDemandIsForwardedUpstreamIncludingDemandAskedBeforeTheUpstreamSubscribed() {
        let upstream = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let other = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2), onValue: { $1 == 11 ? .max(1) : .none })
        upstream.withLatestFrom(other) { $0 + $1 }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.subscribed, .request(.max(2))])
        other.send(10)
        upstream.send(1)
        upstream.send(2)
        XCTAssertEqual(upstream.history, [.subscribed, .request(.max(2)), .request(.max(1))])
        recorder.request(.max(3))
        XCTAssertEqual(upstream.history.last, .request(.max(3)))
        XCTAssertEqual(recorder.values, [11, 12])
    }

    func testNoValueBeyondDemandReachesTheDownstream() {
        let upstream = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let other = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        upstream.withLatestFrom(other).subscribe(recorder)
        other.send(5)
        upstream.send(1)
        upstream.send(2)  // misbehaving upstream: beyond demand; waits in the emitter
        XCTAssertEqual(recorder.values, [5])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [5, 5])
    }

    func testOtherFailureFailsAndCancelsUpstreamOnce() {
        let upstream = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let other = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        upstream.withLatestFrom(other).subscribe(recorder)
        other.send(1)
        upstream.send(0)
        other.send(completion: .failure(TestError(3)))
        upstream.send(0)
        upstream.finish()
        XCTAssertEqual(
            recorder.events, [.subscription("WithLatestFrom"), .value(1), .completion(.failure(TestError(3)))])
        XCTAssertEqual(upstream.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(other.history, [.subscribed, .request(.unlimited)])
    }

    func testUpstreamFailurePassesThroughAndCancelsOther() {
        let upstream = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let other = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        upstream.withLatestFrom(other).subscribe(recorder)
        upstream.send(completion: .failure(TestError(1)))
        XCTAssertEqual(recorder.events, [.subscription("WithLatestFrom"), .completion(.failure(TestError(1)))])
        XCTAssertEqual(other.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testCancelCancelsBothOnceAndReleasesTheSubscriber() {
        let upstream = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let other = ManualPublisher<Token, TestError>(recordsSubscriptions: true)
        weak var weakRecorder: Recorder<Int, TestError>?
        weak var weakLatest: Token?
        do {
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            upstream.withLatestFrom(other) { u, _ in u }.subscribe(recorder)
            let witness = Token()
            weakLatest = witness
            other.send(witness)
            upstream.send(1)
            recorder.cancel()
            recorder.cancel()
            upstream.send(2)
            XCTAssertEqual(recorder.events, [.subscription("WithLatestFrom"), .value(1)])
        }
        XCTAssertEqual(upstream.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(other.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder, "cancel releases the subscriber")
        XCTAssertNil(weakLatest, "cancel releases the latest value")
    }

    func testReentrantRequestFromReceive() {
        let other = CurrentValueSubject<Int, Never>(100)
        var subscription: Subscription?
        var received: [Int] = []
        let sink = AnySubscriber<Int, Never>(
            receiveSubscription: {
                subscription = $0
                $0.request(.max(1))
            },
            receiveValue: {
                received.append($0)
                if received.count < 3 { subscription?.request(.max(1)) }
                return .none
            },
            receiveCompletion: { _ in })
        (1...5).publisher.withLatestFrom(other) { $0 + $1 }.subscribe(sink)
        XCTAssertEqual(received, [101, 102, 103])
    }
}

final class WithLatestFromConcurrencyTests: XCTestCase {
    // CombineCommunity/CombineExt 43b7ceb: the latest other value was read and written from two threads without a lock.
    func testEveryUpstreamValueAfterTheOtherIsSetIsDelivered() {
        let upstream = PassthroughSubject<Int, Never>()
        let other = CurrentValueSubject<Int, Never>(-1)
        let detector = OverlapDetector()
        let count = Counter()
        let cancellable = upstream.withLatestFrom(other) { $1 }.sink { _ in detector.around { count.add(1) } }
        runConcurrently(threads: 4) { thread in
            for i in 0..<1_000 {
                if thread % 2 == 0 { other.send(i) } else { upstream.send(i) }
            }
        }
        XCTAssertEqual(count.value, 2_000, "every upstream value had a latest other value")
        XCTAssertEqual(detector.overlaps, 0)
        withExtendedLifetime(cancellable) {}
    }

    func testOtherFailureRacingUpstreamValuesEndsCleanly() {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, TestError>()
            let other = CurrentValueSubject<Int, TestError>(0)
            let recorder = Recorder<Int, TestError>()
            upstream.withLatestFrom(other).subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for i in 0..<200 { upstream.send(i) }
                } else {
                    other.send(completion: .failure(TestError(1)))
                }
            }
            XCTAssertEqual(recorder.events.last, .completion(.failure(TestError(1))))
            XCTAssertEqual(recorder.events.filter { $0 == .completion(.failure(TestError(1))) }.count, 1)
        }
    }

    func testLockInversionWithUserLockHeldWhileSending() {
        let upstream = PassthroughSubject<Int, Never>()
        let other = CurrentValueSubject<Int, Never>(0)
        let userLock = NSRecursiveLock()
        let count = Counter()
        let cancellable = upstream.withLatestFrom(other).sink { _ in
            userLock.lock()
            count.add(1)
            userLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<2_000 {
                userLock.lock()
                if thread == 0 { other.send(i) } else { upstream.send(i) }
                userLock.unlock()
            }
        }
        XCTAssertEqual(count.value, 2_000)
        withExtendedLifetime(cancellable) {}
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension WithLatestFromTests {
    // CombineCommunity/CombineExt 36e8564 and 4954960 (issue 140): withLatestFrom kept both publishers (and the
    // subscriber) alive after the subscription was cancelled, with or without a result selector.
    func testCancelledSubscriptionKeepsNeitherPublisherAlive() {
        weak var weakUpstream: PassthroughSubject<Int, Never>?
        weak var weakOther: PassthroughSubject<String, Never>?
        var results: [String] = []
        var withSelector: AnyCancellable?
        var withoutSelector: AnyCancellable?
        do {
            let upstream = PassthroughSubject<Int, Never>()
            let other = PassthroughSubject<String, Never>()
            weakUpstream = upstream
            weakOther = other
            withSelector = upstream.withLatestFrom(other) { "\($0)\($1)" }.sink { results.append($0) }
            withoutSelector = upstream.withLatestFrom(other).sink { results.append($0) }
            upstream.send(1)
            other.send("a")
            upstream.send(2)
        }
        XCTAssertEqual(results, ["2a", "a"])
        withSelector?.cancel()
        XCTAssertNotNil(withoutSelector, "still subscribed until its cancellable goes")
        withoutSelector = nil
        XCTAssertNil(weakUpstream)
        XCTAssertNil(weakOther)
        withExtendedLifetime(withSelector) {}
    }

    // CombineCommunity/CombineExt 4954960 (issue 140): the other publisher stayed alive when the upstream finished
    // first (a Just) and the other never completed.
    func testAFinishedUpstreamDoesNotKeepTheOtherPublisherAlive() {
        weak var weakOther: PassthroughSubject<String, Never>?
        let recorder = Recorder<String, Never>()
        do {
            let other = PassthroughSubject<String, Never>()
            weakOther = other
            let upstream = ManualPublisher<Int, Never>()
            upstream.withLatestFrom(other) { "\($0)\($1)" }.subscribe(recorder)
            other.send("foo")
            upstream.send(1)
            upstream.finish()
        }
        XCTAssertEqual(recorder.events, [.subscription("WithLatestFrom"), .value("1foo"), .completion(.finished)])
        XCTAssertNil(weakOther)
    }
}
