import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class DropUntilOutputTests: XCTestCase {
    func testDropsUntilTheTriggerEmitsThenPassesAndReleasesTheTriggerWithoutCancellingIt() {
        let upstream = ManualPublisher<Int, Never>()
        let trigger = ManualPublisher<String, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(5))
        upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
        XCTAssertEqual(trigger.history, [.request(.max(1))])
        XCTAssertEqual(upstream.history, [.request(.max(5))])
        upstream.send(1)
        upstream.send(2)
        trigger.send("go")
        trigger.send(completion: .finished)
        upstream.send(3)
        upstream.send(completion: .finished)
        XCTAssertEqual(
            recorder.events, [.subscription("DropUntilOutput"), .value(3), .completion(.finished)])
        XCTAssertEqual(trigger.history, [.request(.max(1))], "Combine releases the trigger, it does not cancel it")
        XCTAssertEqual(upstream.history, [.request(.max(5))], "dropped values used up demand: nothing re-requested")
    }

    func testDroppedValuesUseUpDemandAsInApple() {
        let upstream = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
        upstream.send(1)
        trigger.send(0)
        upstream.send(2)
        upstream.send(3)
        XCTAssertEqual(recorder.values, [2])
    }

    func testTriggerFailureBeforeItsFirstValueFailsAndCancelsTheUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let trigger = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
        trigger.send(completion: .failure(TestError(2)))
        upstream.send(1)
        XCTAssertEqual(recorder.events, [.subscription("DropUntilOutput"), .completion(.failure(TestError(2)))])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    // Combine asks an upstream that subscribes after the trigger finished for the demand, and delivers its values
    // after the `.finished` it published; under the contract (rule 4) the operator has ended: the latecomer is
    // cancelled.
    func testTriggerFinishingBeforeTheUpstreamSubscribesFinishesAndCancelsTheLateUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.drop(untilOutputFrom: Empty<Int, Never>()).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("DropUntilOutput"), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.cancel])
    }

    // Combine publishes a second trigger completion again (the conformance suite's
    // testOtherCompletesBeforeTriggering); nothing follows a completion here (rule 4).
    func testASecondTriggerCompletionIsNotPublished() {
        let upstream = ManualPublisher<Int, Never>()
        let trigger = UnrulyPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(3))
        upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
        trigger.send(completion: .finished)
        trigger.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("DropUntilOutput"), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(3)), .cancel])
    }

    // Combine lets a trigger value sent after the trigger's completion open the gate, and delivers the upstream's
    // values after the `.finished` it published; nothing follows a completion here (rule 4).
    func testNothingReachesTheDownstreamAfterTheTriggersCompletion() {
        let upstream = UnrulyPublisher<Int, Never>()
        let trigger = UnrulyPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(3))
        upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
        trigger.send(completion: .finished)
        XCTAssertEqual(upstream.send(1), .none)
        trigger.send(0)
        XCTAssertEqual(upstream.send(2), .none)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("DropUntilOutput"), .completion(.finished)])
    }

    // Found by the differential check (Differential/, seed 1449): the upstream finished, and the trigger's own
    // completion, arriving later, was published as a second `.finished`.
    func testTheTriggersCompletionAfterTheUpstreamFinishedIsNotPublished() {
        let trigger = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        Empty<Int, Never>().drop(untilOutputFrom: trigger).subscribe(recorder)
        trigger.send(completion: .finished)
        trigger.send(1)
        XCTAssertEqual(recorder.events, [.subscription("DropUntilOutput"), .completion(.finished)])
    }

    // Found by the differential check (seed 567): the trigger finished first, and the upstream's failure, arriving
    // later from a publisher that fails on subscription, was published after that `.finished`.
    func testTheUpstreamsFailureAfterTheTriggerFinishedIsNotPublished() {
        let upstream = UnrulyPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.drop(untilOutputFrom: Empty<Int, TestError>()).subscribe(recorder)
        upstream.send(completion: .failure(TestError(1)))
        XCTAssertEqual(recorder.events, [.subscription("DropUntilOutput"), .completion(.finished)])
    }

    func testDescribesItselfWithAnEmptyMirror() {
        let upstream = ManualPublisher<Int, Never>()
        let trigger = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
        let subscription = recorder.subscription!
        XCTAssertEqual(String(describing: subscription), "DropUntilOutput")
        XCTAssertEqual((subscription as? CustomReflectable)?.customMirror.children.count, 0)
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String,
            "DropUntilOutput")
    }

    func testTriggerCompletionAfterItsValueIsIgnored() {
        let recorder = Recorder<Int, Never>()
        [1, 2].publisher.drop(untilOutputFrom: Just(0)).subscribe(recorder)
        XCTAssertEqual(
            recorder.events, [.subscription("DropUntilOutput"), .value(1), .value(2), .completion(.finished)])
    }

    func testUpstreamFailureIsPublishedWithoutCancellingTheTriggerAsInCombine() {
        let trigger = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(9)).drop(untilOutputFrom: trigger).subscribe(recorder)
        XCTAssertEqual(recorder.completions, [.failure(TestError(9))])
        XCTAssertEqual(trigger.history, [.request(.max(1))])
    }

    func testInitialDemandZeroThenLaterRequestAndReturnedDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in .max(1) }
        upstream.drop(untilOutputFrom: Just(0)).subscribe(recorder)
        XCTAssertEqual(upstream.history, [])
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(recorder.values, [1])
    }

    func testReentrantRequest() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        [1, 2, 3].publisher.drop(untilOutputFrom: Just(0)).subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testEquatableWhenUpstreamAndOtherAre() {
        XCTAssertEqual(Just(1).drop(untilOutputFrom: Just(2)), Just(1).drop(untilOutputFrom: Just(2)))
        XCTAssertNotEqual(Just(1).drop(untilOutputFrom: Just(2)), Just(1).drop(untilOutputFrom: Just(3)))
    }

    func testCancelCancelsBothOnceAndReleasesTheSubscriber() {
        let upstream = ManualPublisher<Int, Never>()
        let trigger = ManualPublisher<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
            recorder.cancel()
            recorder.cancel()
        }
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(trigger.history, [.request(.max(1)), .cancel])
        XCTAssertNil(weakRecorder)
    }

    func testReleasesTheSubscriberOnceNothingMoreCanReachIt() {
        let upstream = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            upstream.drop(untilOutputFrom: Just(0)).subscribe(recorder)
            subscription = recorder.subscription
        }
        upstream.send(completion: .finished)
        XCTAssertNil(weakRecorder)
        subscription?.cancel()
    }
}

final class DropUntilOutputConcurrencyTests: XCTestCase {
    func testTriggerRacingValuesPassesASuffixInOrder() {
        for _ in 0..<200 {
            let upstream = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Int, Never>()
            let detector = OverlapDetector()
            let recorder = Recorder<Int, Never>()
            upstream.drop(untilOutputFrom: trigger).subscribe(
                OverlapCheckingSubscriber(detector: detector, downstream: recorder))
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for i in 0..<200 { upstream.send(i) }
                } else {
                    trigger.send(0)
                }
            }
            let values = recorder.values
            XCTAssertEqual(values, Array((200 - values.count)..<200), "a suffix of the values, in order")
            XCTAssertEqual(detector.overlaps, 0)
        }
    }

    func testCompletionsRacingFromBothSidesAreBothDeliveredOneAtATime() {
        for _ in 0..<200 {
            let upstream = PassthroughSubject<Int, TestError>()
            let trigger = PassthroughSubject<Int, TestError>()
            let detector = OverlapDetector()
            let recorder = Recorder<Int, TestError>()
            upstream.drop(untilOutputFrom: trigger).subscribe(
                OverlapCheckingSubscriber(detector: detector, downstream: recorder))
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    upstream.send(completion: .failure(TestError(1)))
                } else {
                    trigger.send(completion: .failure(TestError(2)))
                }
            }
            // The trigger's completion cancels the upstream (whose failure then never arrives); the upstream's
            // failure first lets the trigger's completion be published too, as Combine does, but never during it.
            XCTAssertTrue((1...2).contains(recorder.completions.count))
            XCTAssertEqual(detector.overlaps, 0)
        }
    }

    /// Lock inversion: the subscriber takes a user lock that the triggering thread holds while it triggers.
    func testSubscriberTakingALockHeldByTheTriggeringThreadDoesNotDeadlock() {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Int, Never>()
            let userLock = NSRecursiveLock()
            let received = LockedBox(0)
            let recorder = Recorder<Int, Never> { _, _ in
                userLock.lock()
                received.withLock { $0 += 1 }
                userLock.unlock()
                return .none
            }
            upstream.drop(untilOutputFrom: trigger).subscribe(recorder)
            runConcurrently(threads: 2, timeout: 60) { thread in
                if thread == 0 {
                    for i in 0..<500 { upstream.send(i) }
                } else {
                    userLock.lock()
                    trigger.send(0)
                    userLock.unlock()
                }
            }
            upstream.send(500)
            XCTAssertGreaterThanOrEqual(received.withLock { $0 }, 1, "values pass after the trigger")
        }
    }
}

/// A publisher that, unlike a well-behaved one, keeps sending after a completion (and after its subscription was
/// cancelled): it shows what an operator does with signals its sources should not send. Apple's Combine passes
/// some of them on.
final class UnrulyPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let lock = NSLock()
    private var subscriber: AnySubscriber<Output, Failure>?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock { self.subscriber = AnySubscriber(subscriber) }
        LeakCheckObserver.register()
        LeakCheckObserver.cancelAtTeardown { [weak self] in self?.lock.withLock { self?.subscriber = nil } }
        subscriber.receive(subscription: Subscriptions.empty)
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        lock.withLock { subscriber }?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        lock.withLock { subscriber }?.receive(completion: completion)
    }
}
