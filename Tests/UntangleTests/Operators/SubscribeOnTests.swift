import Dispatch
import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class SubscribeOnTests: XCTestCase {
    func testSubscriptionRequestsAndCancelHappenWhenTheSchedulerRuns() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.subscribe(on: scheduler).subscribe(recorder)
        XCTAssertEqual(recorder.events, [], "the upstream is subscribed to on the scheduler")
        scheduler.advance()
        XCTAssertEqual(recorder.events, [.subscription("SubscribeOn")])
        XCTAssertEqual(upstream.history, [.request(.max(2))], "scheduled from the subscription callout, run in turn")
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.max(2))], "a request waits for the scheduler")
        scheduler.advance()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(1))])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(1))], "cancel waits for the scheduler")
        scheduler.advance()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(1)), .cancel])
    }

    func testValuesAndCompletionPassThroughOnTheUpstreamsThread() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.subscribe(on: scheduler).subscribe(recorder)
        scheduler.advance()
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(
            recorder.events,
            [.subscription("SubscribeOn"), .value(1), .value(2), .completion(.failure(TestError(4)))],
            "no scheduler run needed: values are not moved")
    }

    func testReturnedDemandGoesStraightBackToTheUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(2) }
        upstream.subscribe(on: scheduler).subscribe(recorder)
        scheduler.advance()
        XCTAssertEqual(upstream.send(1), .max(2), "returned from the upstream's send, as in Combine")
        scheduler.advance()
        XCTAssertEqual(upstream.history, [.request(.max(1))], "nothing more is requested through the scheduler")
    }

    func testRequestScheduledBeforeCancelStillReachesTheUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.subscribe(on: scheduler).subscribe(recorder)
        scheduler.advance()
        recorder.request(.max(1))
        recorder.cancel()
        XCTAssertEqual(upstream.history, [])
        scheduler.advance()
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel], "in the order they were scheduled")
    }

    func testEveryRequestIncludingNoneIsForwardedOnTheScheduler() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.subscribe(on: scheduler).subscribe(recorder)
        scheduler.advance()
        recorder.request(.max(17))
        recorder.request(.unlimited)
        recorder.request(.none)
        XCTAssertEqual(upstream.history, [])
        scheduler.advance()
        XCTAssertEqual(upstream.history, [.request(.max(17)), .request(.unlimited), .request(.none)])
    }

    func testAfterCancelNothingIsDeliveredAndRequestsAndCancelsGoNowhere() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.subscribe(on: scheduler).subscribe(recorder)
        scheduler.advance()
        recorder.cancel()
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(completion: .failure(TestError(2)))
        scheduler.advance()
        recorder.request(.max(3))
        recorder.cancel()
        scheduler.advance()
        XCTAssertEqual(recorder.events, [.subscription("SubscribeOn")])
        XCTAssertEqual(upstream.history, [.cancel])
    }

    func testAfterTheCompletionValuesAndASecondCompletionAreIgnored() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError(3)))
        XCTAssertEqual(upstream.send(1), .none)
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("SubscribeOn"), .completion(.finished)])
        XCTAssertEqual(subscription.history, [.request(.unlimited)], "nothing is requested after the completion")
    }

    func testSignalsBeforeTheSubscriptionAreIgnored() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(completion: .finished)
        upstream.operatorSubscription?.request(.max(1))
        XCTAssertEqual(recorder.events, [])
    }

    func testCancelBeforeTheUpstreamSubscriptionMakesItBeIgnored() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
        upstream.operatorSubscription?.cancel()
        let late = LoggingUpstreamSubscription()
        upstream.send(subscription: late)
        XCTAssertEqual(late.history, [], "as in Combine: neither passed on nor cancelled")
        XCTAssertEqual(recorder.events, [])
    }

    func testASecondSubscriptionIsCancelled() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
        let first = LoggingUpstreamSubscription()
        let second = LoggingUpstreamSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        upstream.send(subscription: first)
        XCTAssertEqual(second.history, [.cancel])
        XCTAssertEqual(first.history, [.cancel])
        recorder.cancel()
        XCTAssertEqual(first.history, [.cancel, .cancel])
        XCTAssertEqual(recorder.events, [.subscription("SubscribeOn")])
    }

    /// Combine traps here (it requests upstream under a lock); Untangle's contract makes reentrant requests work.
    func testRecursiveRequestOnAnImmediateSchedulerWorks() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(recorder)
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        var remaining = 3
        subscription.onRequest = { _ in
            guard remaining > 0 else { return }
            remaining -= 1
            recorder.request(.unlimited)
        }
        recorder.request(.max(1))
        XCTAssertEqual(
            subscription.history, [.request(.max(1)), .request(.unlimited), .request(.unlimited), .request(.unlimited)])
    }

    func testDescribesItselfAsSubscribeOnWithAnEmptyMirror() throws {
        let upstream = UnsubscribedUpstream<Int, Never>()
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(Recorder<Int, Never>())
        let subscriber = try XCTUnwrap(upstream.operatorSubscriber)
        XCTAssertEqual((subscriber as? CustomStringConvertible)?.description, "SubscribeOn")
        XCTAssertEqual(
            (subscriber as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "SubscribeOn")
        XCTAssertEqual((subscriber as? CustomReflectable)?.customMirror.children.count, 0)
    }

    func testCancelBeforeTheSubscriptionArrivesCancelsItOnArrival() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int, Never>()
        let upstream = ManualPublisher<Int, Never>()
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                subscription.cancel()
                recorder.receive(subscription: subscription)
            },
            receiveValue: { recorder.receive($0) },
            receiveCompletion: { recorder.receive(completion: $0) })
        upstream.subscribe(on: scheduler).subscribe(subscriber)
        scheduler.advance()
        upstream.send(1)
        XCTAssertEqual(recorder.values, [], "nothing is delivered after cancel")
        scheduler.advance()
        XCTAssertEqual(upstream.history.last, .cancel)
    }

    func testCompletionWithZeroDemandIsDelivered() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.subscribe(on: scheduler).subscribe(recorder)
        scheduler.advance()
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("SubscribeOn"), .completion(.finished)])
    }

    func testReleasesTheSubscriberAfterCancel() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.subscribe(on: scheduler).subscribe(recorder)
            scheduler.advance()
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
        scheduler.advance()
    }
}

private let probeKey = DispatchSpecificKey<String>()

/// An upstream that records on which queue (by its specific value) it is subscribed to, asked and cancelled.
private final class QueueProbe: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    let log = LockedBox([String]())

    private func note(_ what: String) {
        let queue = DispatchQueue.getSpecific(key: probeKey) ?? "elsewhere"
        log.withLock { $0.append("\(what)@\(queue)") }
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        note("subscribe")
        subscriber.receive(subscription: Probe(owner: self))
    }

    private final class Probe: Subscription {
        let owner: QueueProbe
        init(owner: QueueProbe) { self.owner = owner }
        func request(_ demand: Subscribers.Demand) { owner.note("request(\(demand))") }
        func cancel() { owner.note("cancel") }
    }
}

final class SubscribeOnConcurrencyTests: XCTestCase {
    func testSubscribeRequestAndCancelHappenOnTheTargetQueue() {
        let queue = DispatchQueue(label: "subscribe-on-target")
        queue.setSpecific(key: probeKey, value: "target")
        let probe = QueueProbe()
        let subscribed = expectation(description: "subscribed")
        // The test makes every request itself, after the subscription callout: two threads requesting at once
        // would make the order of the requests (not where they run) the test's own race.
        let recorder = Recorder<Int, Never>(initialDemand: nil, onSubscription: { _, _ in subscribed.fulfill() })
        probe.subscribe(on: queue).subscribe(recorder)
        wait(for: [subscribed], timeout: 30)
        recorder.request(.max(3))
        recorder.request(.max(1))
        let requested = expectation(description: "requested")
        queue.async { requested.fulfill() }
        wait(for: [requested], timeout: 30)
        recorder.cancel()
        let drained = expectation(description: "drained")
        queue.async { drained.fulfill() }
        wait(for: [drained], timeout: 30)
        XCTAssertEqual(
            probe.log.withLock { $0 },
            ["subscribe@target", "request(max(3))@target", "request(max(1))@target", "cancel@target"])
    }

    /// On a concurrent queue the upstream may start sending (on the request's thread) while the subscriber is still
    /// in `receive(subscription:)`: the subscriber must still see one signal at a time, the subscription first.
    func testConcurrentQueueStillSerializesTheSubscriber() {
        for _ in 0..<200 {
            let detector = OverlapDetector()
            let finished = expectation(description: "finished")
            let count = LockedBox(0)
            let subscriber = AnySubscriber<Int, Never>(
                receiveSubscription: { subscription in
                    detector.around {
                        subscription.request(.unlimited)
                        // Keep the callout busy a little so the upstream has time to start sending meanwhile.
                        var spin = 0
                        for i in 0..<2_000 { spin &+= i }
                        XCTAssertGreaterThan(spin, 0)
                    }
                },
                receiveValue: { _ in
                    detector.around { count.withLock { $0 += 1 } }
                    return .none
                },
                receiveCompletion: { _ in finished.fulfill() })
            (0..<20).publisher.subscribe(on: DispatchQueue.global()).subscribe(subscriber)
            wait(for: [finished], timeout: 30)
            XCTAssertEqual(detector.overlaps, 0)
            XCTAssertEqual(count.withLock { $0 }, 20)
        }
    }
}
