import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class PrefixUntilOutputTests: XCTestCase {
    func testRepublishesUntilTheTriggerEmitsThenFinishesCancellingTheUpstreamAndReleasingTheTrigger() {
        let upstream = ManualPublisher<Int, Never>()
        let trigger = ManualPublisher<String, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(5))
        upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
        XCTAssertEqual(trigger.history, [.request(.max(1))])
        XCTAssertEqual(upstream.history, [.request(.max(5))])
        upstream.send(1)
        upstream.send(2)
        trigger.send("stop")
        upstream.send(3)
        XCTAssertEqual(
            typeNamed(recorder.events),
            [.subscription("PrefixUntilOutput"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(5)), .cancel])
        XCTAssertEqual(trigger.history, [.request(.max(1))], "Combine releases the trigger, it does not cancel it")
    }

    func testTriggerCompletionIsIgnored() {
        let upstream = PassthroughSubject<Int, TestError>()
        let trigger = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
        trigger.send(completion: .failure(TestError(5)))
        upstream.send(1)
        upstream.send(completion: .failure(TestError(6)))
        XCTAssertEqual(
            typeNamed(recorder.events),
            [.subscription("PrefixUntilOutput"), .value(1), .completion(.failure(TestError(6)))])
    }

    func testUpstreamCompletionCancelsTheTrigger() {
        let trigger = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        [1, 2].publisher.prefix(untilOutputFrom: trigger).subscribe(recorder)
        XCTAssertEqual(
            typeNamed(recorder.events),
            [.subscription("PrefixUntilOutput"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(trigger.history, [.request(.max(1)), .cancel])
    }

    func testTriggerFiringBeforeTheUpstreamSubscribesPassesTheSubscriptionThenFinishesAndCancelsTheUpstreamOnArrival() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.prefix(untilOutputFrom: Just(0)).subscribe(recorder)
        XCTAssertEqual(typeNamed(recorder.events), [.subscription("PrefixUntilOutput"), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.cancel])
    }

    func testTriggerFiringFromInsideReceiveFinishesAfterThatCallReturns() {
        let upstream = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Void, Never>()
        let insideReceive = LockedBox(false)
        let completedInside = LockedBox(false)
        let recorder = Recorder<Int, Never> { _, value in
            insideReceive.withLock { $0 = true }
            if value == 2 { trigger.send() }
            insideReceive.withLock { $0 = false }
            return .none
        }
        upstream.prefix(untilOutputFrom: trigger)
            .handleCompletionForTest { completedInside.withLock { $0 = insideReceive.withLock { $0 } } }
            .subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        XCTAssertEqual(
            typeNamed(recorder.events),
            [.subscription("PrefixUntilOutput"), .value(1), .value(2), .completion(.finished)])
        XCTAssertFalse(completedInside.withLock { $0 }, "the completion must not be nested inside receive(_:)")
    }

    func testInitialDemandZeroThenLaterRequestAndReturnedDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in .max(1) }
        upstream.prefix(untilOutputFrom: PassthroughSubject<Int, Never>()).subscribe(recorder)
        XCTAssertEqual(upstream.history, [])
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.send(1), .max(1), "returned demand goes back to the upstream")
    }

    func testRequestBeforeTheUpstreamSubscribesIsForwardedWhenItDoes() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        [1, 2, 3].publisher.prefix(untilOutputFrom: Empty<Int, Never>()).subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(recorder.completions, [])
    }

    func testCancelCancelsBothOnceAndReleasesTheSubscriber() {
        let upstream = ManualPublisher<Int, Never>()
        let trigger = ManualPublisher<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
            recorder.cancel()
            recorder.cancel()
        }
        upstream.send(1)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(trigger.history, [.request(.max(1)), .cancel])
        XCTAssertNil(weakRecorder)
    }

    func testReleasesTheSubscriberOnceNothingMoreCanReachIt() {
        let upstream = PassthroughSubject<Int, Never>()
        let trigger = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
            subscription = recorder.subscription
        }
        trigger.send(1)
        XCTAssertNil(weakRecorder)
        subscription?.cancel()
    }

    func testDoesNotDescribeItselfLikeCombine() {
        let recorder = Recorder<Int, Never>()
        ManualPublisher<Int, Never>().prefix(untilOutputFrom: PassthroughSubject<Int, Never>()).subscribe(recorder)
        let subscription: Any = recorder.subscription!
        XCTAssertFalse(subscription is CustomStringConvertible)
        XCTAssertFalse(subscription is CustomReflectable)
    }
}

final class PrefixUntilOutputConcurrencyTests: XCTestCase {
    func testTriggerRacingValuesFinishesOnceLastAndNeverOverlapsADelivery() {
        for _ in 0..<200 {
            let upstream = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Int, Never>()
            let detector = OverlapDetector()
            let recorder = Recorder<Int, Never>()
            let checked = OverlapCheckingSubscriber(detector: detector, downstream: recorder)
            upstream.prefix(untilOutputFrom: trigger).subscribe(checked)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for i in 0..<200 { upstream.send(i) }
                } else {
                    trigger.send(0)
                }
            }
            XCTAssertEqual(recorder.completions, [.finished])
            if case .completion = recorder.events.last {} else { XCTFail("finished must be last") }
            XCTAssertEqual(recorder.values, Array(0..<recorder.values.count), "a prefix of the values, in order")
            XCTAssertEqual(detector.overlaps, 0)
        }
    }

    /// Lock inversion: the subscriber takes a user lock that the triggering thread holds while it triggers.
    func testSubscriberTakingALockHeldByTheTriggeringThreadDoesNotDeadlock() {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, Never>()
            let trigger = PassthroughSubject<Int, Never>()
            let userLock = NSRecursiveLock()
            let recorder = Recorder<Int, Never> { _, _ in
                userLock.lock()
                userLock.unlock()
                return .none
            }
            upstream.prefix(untilOutputFrom: trigger).subscribe(recorder)
            runConcurrently(threads: 2, timeout: 60) { thread in
                if thread == 0 {
                    for i in 0..<500 { upstream.send(i) }
                } else {
                    userLock.lock()
                    trigger.send(0)
                    userLock.unlock()
                }
            }
            XCTAssertEqual(recorder.completions, [.finished])
        }
    }
}

/// Wraps every signal to a subscriber in an overlap detector (completion included).
final class OverlapCheckingSubscriber<Downstream: Subscriber>: Subscriber, @unchecked Sendable {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure
    let detector: OverlapDetector
    let downstream: Downstream

    init(detector: OverlapDetector, downstream: Downstream) {
        self.detector = detector
        self.downstream = downstream
    }

    func receive(subscription: Subscription) { detector.around { downstream.receive(subscription: subscription) } }
    func receive(_ input: Input) -> Subscribers.Demand { detector.around { downstream.receive(input) } }
    func receive(completion: Subscribers.Completion<Failure>) {
        detector.around { downstream.receive(completion: completion) }
    }
}

extension Publisher {
    /// Runs `body` when the completion passes (a minimal handleEvents for these tests).
    fileprivate func handleCompletionForTest(_ body: @escaping () -> Void) -> AnyPublisher<Output, Failure> {
        AnyPublisher(CompletionSpy(upstream: self, body: body))
    }
}

private struct CompletionSpy<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure
    let upstream: Upstream
    let body: () -> Void

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.subscribe(
            AnySubscriber(
                receiveSubscription: { subscriber.receive(subscription: $0) },
                receiveValue: { subscriber.receive($0) },
                receiveCompletion: {
                    body()
                    subscriber.receive(completion: $0)
                }))
    }
}

/// The events with a subscription described by its type name (an operator that, like Combine's, does not describe
/// itself: the trigger skeleton's type, naming the operator's state machine) shortened to the operator's name.
private func typeNamed<Value, Failure>(_ events: [Event<Value, Failure>]) -> [Event<Value, Failure>] {
    events.map { event in
        if case .subscription(let name) = event, name.contains("PrefixUntilOutputStateMachine") {
            return .subscription("PrefixUntilOutput")
        }
        return event
    }
}
