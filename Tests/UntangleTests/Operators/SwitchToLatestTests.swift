import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class SwitchToLatestTests: XCTestCase {
    typealias Inner = ManualPublisher<Int, TestError>

    func testRepublishesOnlyTheLatestInnerAndCancelsThePreviousOne() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let b = Inner()
        let recorder = Recorder<Int, TestError>()
        outer.switchToLatest().subscribe(recorder)
        XCTAssertEqual(outer.history, [.request(.unlimited)])
        outer.send(a)
        a.send(1)
        outer.send(b)
        a.send(2)
        b.send(3)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .value(1), .value(3)])
        XCTAssertEqual(a.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(b.history, [.request(.unlimited)])
    }

    func testOutstandingDemandCarriesOverToTheNewInnerAndLaterRequestsGoToItOnly() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let b = Inner()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(3))
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        a.send(1)
        outer.send(b)
        XCTAssertEqual(b.history, [.request(.max(2))])
        recorder.request(.max(1))
        XCTAssertEqual(a.history, [.request(.max(3)), .cancel])
        XCTAssertEqual(b.history, [.request(.max(2)), .request(.max(1))])
    }

    // (A value of a replaced inner that was already queued when the switch happened is dropped too: see the
    // concurrency test below; the current inner cannot queue one here, since a value without demand traps.)
    func testAReplacedInnersValueIsDroppedAndUsesNoDemand() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let b = Inner()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        XCTAssertEqual(a.send(1), .none)
        outer.send(b)
        XCTAssertEqual(b.history, [.request(.max(1))], "the demand not yet met carries over")
        XCTAssertEqual(a.send(2), .none)
        XCTAssertEqual(b.send(3), .none)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .value(1), .value(3)])
        XCTAssertEqual(a.history, [.request(.max(2)), .cancel])
        XCTAssertEqual(b.history, [.request(.max(1))])
    }

    func testFinishesWhenTheOuterAndTheCurrentInnerHaveFinished() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let b = Inner()
        let recorder = Recorder<Int, TestError>()
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        outer.send(b)
        a.send(completion: .finished)
        outer.send(completion: .finished)
        XCTAssertEqual(recorder.completions, [], "b is still live")
        b.send(4)
        b.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .value(4), .completion(.finished)])

        let empty = Recorder<Int, Never>(initialDemand: nil)
        Empty<Just<Int>, Never>().switchToLatest().subscribe(empty)
        XCTAssertEqual(empty.events, [.subscription("SwitchToLatest"), .completion(.finished)])
    }

    func testInnerFinishingBeforeTheOuterKeepsTheSwitchOpen() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let b = Inner()
        let recorder = Recorder<Int, TestError>()
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        a.send(completion: .finished)
        outer.send(b)
        b.send(5)
        outer.send(completion: .finished)
        b.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .value(5), .completion(.finished)])
    }

    func testCurrentInnerFailureCancelsTheOuterAndAReplacedInnerFailureIsIgnored() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let b = Inner()
        let recorder = Recorder<Int, TestError>()
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        outer.send(b)
        a.send(completion: .failure(TestError(1)))
        XCTAssertEqual(recorder.completions, [])
        b.send(completion: .failure(TestError(2)))
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.failure(TestError(2)))])
        XCTAssertEqual(outer.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(b.history, [.request(.unlimited)])
    }

    func testOuterFailureCancelsTheCurrentInnerButNotTheOuter() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let recorder = Recorder<Int, TestError>()
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        outer.send(completion: .failure(TestError(7)))
        a.send(1)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.failure(TestError(7)))])
        XCTAssertEqual(outer.history, [.request(.unlimited)])
        XCTAssertEqual(a.history, [.request(.unlimited), .cancel])
    }

    func testCancelCancelsOuterAndCurrentInnerOnce() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        recorder.cancel()
        recorder.cancel()
        a.send(1)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest")])
        XCTAssertEqual(outer.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(a.history, [.request(.max(2)), .cancel])
    }

    /// Regression: demand returned from `receive(_:)` must reach the current inner. As in Combine, it is the return
    /// value of the inner's own `receive(_:)` (not a request), and it counts towards the demand carried over.
    func testDemandReturnedFromReceiveGoesBackAsTheInnersReturnValueAndCarriesOver() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let b = Inner()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { _, _ in .max(2) }
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        XCTAssertEqual(a.send(1), .max(2))
        XCTAssertEqual(a.send(2), .max(2))
        XCTAssertEqual(a.history, [.request(.max(1))])
        outer.send(b)
        XCTAssertEqual(b.history, [.request(.max(3))], "1 - 1 + 2 - 1 + 2")
        XCTAssertEqual(recorder.values, [1, 2])
    }

    func testADownstreamRequestDuringDeliveryGoesToTheInnerAsARequest() {
        let outer = ManualPublisher<Inner, TestError>()
        let a = Inner()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(5))
            return .none
        }
        outer.switchToLatest().subscribe(recorder)
        outer.send(a)
        XCTAssertEqual(a.send(1), .none)
        XCTAssertEqual(a.history, [.request(.max(1)), .request(.max(5))])
    }

    func testTheDownstreamIsSubscribedBeforeTheOuterAndItsDemandWaitsForTheFirstInner() {
        let outer = UnsubscribedUpstream<Inner, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(4))
        outer.switchToLatest().subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest")])
        let outerSubscription = LoggingUpstreamSubscription()
        outer.send(subscription: outerSubscription)
        XCTAssertEqual(outerSubscription.history, [.request(.unlimited)])
        let secondOuterSubscription = LoggingUpstreamSubscription()
        outer.send(subscription: secondOuterSubscription)
        XCTAssertEqual(secondOuterSubscription.history, [.cancel])
        let a = Inner()
        outer.send(a)
        XCTAssertEqual(a.history, [.request(.max(4))])
        recorder.cancel()
        XCTAssertEqual(outerSubscription.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(a.history, [.request(.max(4)), .cancel])
        let lateOuterSubscription = LoggingUpstreamSubscription()
        outer.send(subscription: lateOuterSubscription)
        XCTAssertEqual(lateOuterSubscription.history, [.cancel])
    }

    func testTheOuterFinishingBeforeItsSubscriptionFinishesTheDownstream() {
        let outer = UnsubscribedUpstream<Inner, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        outer.switchToLatest().subscribe(recorder)
        outer.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.finished)])
    }

    func testASecondInnerSubscriptionIsCancelledAndOneAfterTheInnerFinishedIsIgnored() {
        typealias LateInner = UnsubscribedUpstream<Int, TestError>
        let outer = ManualPublisher<LateInner, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        outer.switchToLatest().subscribe(recorder)
        let a = LateInner()
        outer.send(a)
        XCTAssertEqual(a.send(1), .none, "a value before the inner's subscription is delivered")
        let first = LoggingUpstreamSubscription()
        a.send(subscription: first)
        XCTAssertEqual(first.history, [.request(.max(1))])
        let second = LoggingUpstreamSubscription()
        a.send(subscription: second)
        XCTAssertEqual(second.history, [.cancel])
        a.send(completion: .finished)
        let afterFinish = LoggingUpstreamSubscription()
        a.send(subscription: afterFinish)
        XCTAssertEqual(afterFinish.history, [])
        XCTAssertEqual(first.history, [.request(.max(1))])
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .value(1)])
    }

    func testAnInnerSubscribingAfterTheOuterFinishedIsAskedForTheDemandAndFinishesTheSwitch() {
        typealias LateInner = UnsubscribedUpstream<Int, TestError>
        let outer = ManualPublisher<LateInner, TestError>()
        let recorder = Recorder<Int, TestError>()
        outer.switchToLatest().subscribe(recorder)
        let a = LateInner()
        outer.send(a)
        outer.send(completion: .finished)
        let subscription = LoggingUpstreamSubscription()
        a.send(subscription: subscription)
        XCTAssertEqual(subscription.history, [.request(.unlimited)])
        XCTAssertEqual(a.send(7), .none)
        a.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .value(7), .completion(.finished)])
    }

    // Combine asks an inner that subscribes after the outer failed for the demand (and delivers nothing of it).
    func testAnInnerSubscribingAfterTheOuterFailedIsAskedForTheDemandButDeliversNothing() {
        typealias LateInner = UnsubscribedUpstream<Int, TestError>
        let outer = ManualPublisher<LateInner, TestError>()
        let recorder = Recorder<Int, TestError>()
        outer.switchToLatest().subscribe(recorder)
        let a = LateInner()
        outer.send(a)
        outer.send(completion: .failure(TestError(3)))
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.failure(TestError(3)))])
        let subscription = LoggingUpstreamSubscription()
        a.send(subscription: subscription)
        XCTAssertEqual(subscription.history, [.request(.unlimited)])
        XCTAssertEqual(a.send(1), .none)
        a.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.failure(TestError(3)))])
        XCTAssertEqual(outer.history, [.request(.unlimited)])
    }

    func testDescriptionsAndMirrorsOfTheSubscriptionAndTheInnerSubscriber() throws {
        let outer = UnsubscribedUpstream<UnsubscribedUpstream<Int, TestError>, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        outer.switchToLatest().subscribe(recorder)
        let subscription = try XCTUnwrap(outer.operatorSubscription)
        XCTAssertEqual(String(describing: subscription), "SwitchToLatest")
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String,
            "SwitchToLatest")
        XCTAssertEqual((subscription as? CustomReflectable)?.customMirror.children.count, 0)
        XCTAssertFalse(subscription is CustomDebugStringConvertible)
        let inner = UnsubscribedUpstream<Int, TestError>()
        outer.send(inner)
        let innerSubscriber = try XCTUnwrap(inner.operatorSubscriber)
        XCTAssertFalse(innerSubscriber is Subscription)
        XCTAssertEqual(String(describing: innerSubscriber), "SwitchToLatest")
        XCTAssertEqual(
            (innerSubscriber as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String,
            "SwitchToLatest")
        let children = try XCTUnwrap((innerSubscriber as? CustomReflectable)?.customMirror.children)
        XCTAssertEqual(children.map(\.label), ["parentSubscription"])
        XCTAssertEqual(children.first?.value as? CombineIdentifier, subscription.combineIdentifier)
        XCTAssertNotEqual(
            (innerSubscriber as? CustomCombineIdentifierConvertible)?.combineIdentifier,
            subscription.combineIdentifier)
    }

    func testReentrantRequestsWithSynchronousInners() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        (0..<3).publisher.map { (0..<($0 + 1) * 100).publisher }.switchToLatest().subscribe(recorder)
        XCTAssertEqual(recorder.values, Array(0..<100) + Array(0..<200) + Array(0..<300))
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testEveryOverloadHasApplesReturnType() {
        let both: Publishers.SwitchToLatest<Just<Int>, Publishers.Sequence<[Just<Int>], Never>> =
            [Just(1)].publisher.switchToLatest()
        let innerFails:
            Publishers.SwitchToLatest<
                Fail<Int, TestError>, Publishers.SetFailureType<Just<Fail<Int, TestError>>, TestError>
            > =
                Just(Fail<Int, TestError>(error: TestError(8))).switchToLatest()
        let outerFails:
            Publishers.SwitchToLatest<
                Publishers.SetFailureType<Just<Int>, TestError>,
                Publishers.Map<Fail<Just<Int>, TestError>, Publishers.SetFailureType<Just<Int>, TestError>>
            > = Fail<Just<Int>, TestError>(error: TestError(9)).switchToLatest()
        let same:
            Publishers.SwitchToLatest<
                Fail<Int, TestError>, Publishers.SetFailureType<Just<Fail<Int, TestError>>, TestError>
            > =
                Just(Fail<Int, TestError>(error: TestError(8))).setFailureType(to: TestError.self).switchToLatest()

        let a = Recorder<Int, Never>()
        both.subscribe(a)
        XCTAssertEqual(a.values, [1])
        let b = Recorder<Int, TestError>()
        innerFails.subscribe(b)
        XCTAssertEqual(b.completions, [.failure(TestError(8))])
        let c = Recorder<Int, TestError>()
        outerFails.subscribe(c)
        XCTAssertEqual(c.completions, [.failure(TestError(9))])
        let d = Recorder<Int, TestError>()
        same.subscribe(d)
        XCTAssertEqual(d.completions, [.failure(TestError(8))])
    }

    func testReleasesTheSubscriberAfterCancelAndAfterCompletion() {
        weak var cancelled: Recorder<Int, Never>?
        weak var completed: Recorder<Int, Never>?
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inner = PassthroughSubject<Int, Never>()
        do {
            let recorder = Recorder<Int, Never>()
            cancelled = recorder
            outer.switchToLatest().subscribe(recorder)
            outer.send(inner)
            recorder.cancel()
        }
        do {
            let recorder = Recorder<Int, Never>()
            completed = recorder
            [Just(1)].publisher.switchToLatest().subscribe(recorder)
            XCTAssertEqual(recorder.completions, [.finished])
        }
        XCTAssertNil(cancelled)
        XCTAssertNil(completed)
    }
}

final class SwitchToLatestConcurrencyTests: XCTestCase {
    /// The old inner keeps sending on another thread while the switch happens: once the switch has returned, at
    /// most the one delivery already under way may still land, and no old value ever follows a new one.
    func testSwitchingWhileTheOldInnerSendsFromAnotherThreadDeliversNoStaleValue() {
        for _ in 0..<200 {
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let old = PassthroughSubject<Int, Never>()
            let new = PassthroughSubject<Int, Never>()
            let detector = OverlapDetector()
            let received = LockedBox<[Int]>([])
            let oldCountAtSwitch = LockedBox(0)
            let cancellable = outer.switchToLatest().sink { value in
                detector.around { received.withLock { $0.append(value) } }
            }
            outer.send(old)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    outer.send(new)
                    oldCountAtSwitch.withLock { $0 = received.withLock { $0.filter { $0 < 1_000 }.count } }
                    for i in 0..<100 { new.send(1_000 + i) }
                } else {
                    for i in 0..<300 { old.send(i) }
                }
            }
            let values = received.withLock { $0 }
            XCTAssertEqual(detector.overlaps, 0)
            XCTAssertEqual(values.filter { $0 >= 1_000 }, Array(1_000..<1_100), "every new value arrives, in order")
            if let firstNew = values.firstIndex(where: { $0 >= 1_000 }) {
                XCTAssertFalse(values[firstNew...].contains { $0 < 1_000 }, "an old value followed a new one")
            }
            let oldAfterSwitch = values.filter { $0 < 1_000 }.count - oldCountAtSwitch.withLock { $0 }
            XCTAssertLessThanOrEqual(oldAfterSwitch, 1, "only a delivery already under way may land after the switch")
            cancellable.cancel()
        }
    }

    func testExactCountsWhenDemandArrivesOneAtATimeFromFourThreads() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Just((0..<4_000).publisher).switchToLatest().subscribe(recorder)
        runConcurrently(threads: 4) { _ in
            for _ in 0..<1_000 { recorder.request(.max(1)) }
        }
        XCTAssertEqual(recorder.values, Array(0..<4_000))
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testSwitchesAndRequestsFromSeveralThreadsNeverExceedDemand() {
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inners = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        outer.switchToLatest().subscribe(recorder)
        outer.send(inners[0])
        runConcurrently(threads: 4) { thread in
            for i in 0..<1_000 {
                switch thread {
                case 0: recorder.request(.max(1))
                case 1: if i % 10 == 0 { outer.send(inners[(i / 10) % 4]) }
                default: inners[i % 4].send(i)
                }
            }
        }
        XCTAssertLessThanOrEqual(recorder.values.count, 1_000)
    }

    /// Lock inversion: the subscriber takes a user lock that another thread holds while it switches and sends.
    func testSubscriberTakingALockHeldByASwitchingThreadDoesNotDeadlock() {
        let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
        let inners = (0..<2).map { _ in PassthroughSubject<Int, Never>() }
        let userLock = NSRecursiveLock()
        let received = LockedBox(0)
        let cancellable = outer.switchToLatest().sink { _ in
            userLock.lock()
            received.withLock { $0 += 1 }
            userLock.unlock()
        }
        outer.send(inners[0])
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    inners[i % 2].send(i)
                } else {
                    userLock.lock()
                    outer.send(inners[i % 2])
                    inners[i % 2].send(i)
                    userLock.unlock()
                }
            }
        }
        // The watchdog in runConcurrently is the real assertion (no deadlock). Values queued behind a switch may be
        // dropped as stale, so only an upper bound holds.
        XCTAssertLessThanOrEqual(received.withLock { $0 }, 4_000)
        XCTAssertGreaterThan(received.withLock { $0 }, 0)
        cancellable.cancel()
    }

    func testFailureRacingValuesDeliversOneCompletionLast() {
        for _ in 0..<100 {
            let outer = PassthroughSubject<PassthroughSubject<Int, TestError>, TestError>()
            let inner = PassthroughSubject<Int, TestError>()
            let recorder = Recorder<Int, TestError>()
            outer.switchToLatest().subscribe(recorder)
            outer.send(inner)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for i in 0..<100 { inner.send(i) }
                } else {
                    outer.send(completion: .failure(TestError()))
                }
            }
            XCTAssertEqual(recorder.completions.count, 1)
            if case .completion = recorder.events.last {} else { XCTFail("completion must be last") }
        }
    }

    func testTheOuterSubscriptionIsReleasedAfterUnlockingWhenTheOuterFinishes() {
        let record = ReleaseRecord()
        let recorder = Recorder<Int, Never>()
        ReleaseProbePublisher<Just<Int>, Never>(completion: .finished, record: record).switchToLatest()
            .subscribe(recorder)
        XCTAssertEqual(record.releases, [.outsideLocks])
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.finished)])
    }

    func testTheOuterSubscriptionIsReleasedAfterUnlockingWhenTheOuterFails() {
        let record = ReleaseRecord()
        let recorder = Recorder<Int, TestError>()
        ReleaseProbePublisher<Fail<Int, TestError>, TestError>(completion: .failure(TestError()), record: record)
            .switchToLatest().subscribe(recorder)
        XCTAssertEqual(record.releases, [.outsideLocks])
        XCTAssertEqual(recorder.events, [.subscription("SwitchToLatest"), .completion(.failure(TestError()))])
    }
}
