import Foundation
import Untangle
import UntangleSync
import XCTest

/// The scenarios of the custom-publisher article in the seeds, as regression tests against Untangle's own
/// subscriptions (the subject and synchronous-source machinery).
final class SeedRegressionConcurrencyTests: XCTestCase {
    /// 1,000 concurrent `request(.max(1))` calls: the article's unprotected `requested += demand` loses some of
    /// them. Every request must count: exactly 1,000 values arrive, in order, never overlapping.
    func testThousandConcurrentRequestsAreAllCounted() {
        let overlap = LockedBox((inside: 0, overlaps: 0))
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in
            overlap.withLock {
                $0.inside += 1
                if $0.inside > 1 { $0.overlaps += 1 }
            }
            overlap.withLock { $0.inside -= 1 }
            return .none
        }
        (0..<5_000).publisher.subscribe(recorder)
        runConcurrently(threads: 8) { thread in
            for _ in stride(from: thread, to: 1_000, by: 8) {
                recorder.request(.max(1))
            }
        }
        XCTAssertEqual(recorder.values, Array(0..<1_000))
        XCTAssertEqual(overlap.withLock { $0.overlaps }, 0)
    }

    /// The same on a subject: 1,000 concurrent requests, then 2,000 sends: exactly 1,000 delivered.
    func testThousandConcurrentRequestsOnASubject() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        subject.subscribe(recorder)
        runConcurrently(threads: 8) { thread in
            for _ in stride(from: thread, to: 1_000, by: 8) {
                recorder.request(.max(1))
            }
        }
        for value in 0..<2_000 { subject.send(value) }
        XCTAssertEqual(recorder.values, Array(0..<1_000))
    }

    /// The article's deadlock: a subscriber calling `request` from inside `receive` while the publisher delivers
    /// under its (serial-queue or plain) lock. Untangle never holds a lock during delivery.
    func testReentrantRequestInsideReceiveDoesNotDeadlock() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        subject.subscribe(recorder)
        withWatchdog("request from inside receive") {
            for value in 0..<1_000 { subject.send(value) }
        }
        XCTAssertEqual(recorder.values, Array(0..<1_000))
    }

    /// Values delivered from one thread while another thread requests: the article's "sendValue on main, request
    /// on a global queue" race. No value beyond demand, none lost within it.
    func testRequestsRacingDeliveryFromAnotherThread() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        (0..<100_000).publisher.subscribe(recorder)
        runConcurrently(threads: 2) { _ in
            for _ in 0..<2_000 { recorder.request(.max(1)) }
        }
        XCTAssertEqual(recorder.values, Array(0..<4_000))
    }

    /// Cancel racing delivery: after `cancel()` returns on the delivering thread's peer, at most the delivery in
    /// progress completes; the sequence stops and the subscriber is released.
    func testCancelRacingDeliveryStopsTheStream() {
        for _ in 0..<50 {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            (0..<1_000_000).publisher.subscribe(recorder)
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            Thread {
                started.signal()
                recorder.request(.unlimited)
                finished.signal()
            }.start()
            started.wait()
            recorder.cancel()
            let countAtCancel = recorder.values.count
            XCTAssertEqual(finished.wait(timeout: .now() + 30), .success, "the emitting thread must stop")
            XCTAssertLessThanOrEqual(recorder.values.count, countAtCancel + 1)
            XCTAssertTrue(recorder.completions.isEmpty, "a cancelled stream does not complete")
        }
    }
}

/// Regression (found by ThreadSanitizer through flatMap): a synchronous source emitted on a thread that requested
/// while the subscriber's `receive(subscription:)` was still running on another thread, so the subscriber saw
/// `receive(_:)` overlap `receive(subscription:)`.
final class SubscriptionCalloutOverlapConcurrencyTests: XCTestCase {
    private final class HandingOffSubscriber: Subscriber, @unchecked Sendable {
        typealias Input = Int
        typealias Failure = Never
        let inside = LockedBox((inSubscription: false, overlaps: 0, values: [Int]()))
        let requested = DispatchSemaphore(value: 0)

        func receive(subscription: Subscription) {
            inside.withLock { $0.inSubscription = true }
            // Hand the subscription to another thread and wait until its request has returned.
            let handed = UncheckedBox(subscription)
            Thread {
                handed.value.request(.unlimited)
                self.requested.signal()
            }.start()
            _ = requested.wait(timeout: .now() + 30)
            inside.withLock { $0.inSubscription = false }
        }

        func receive(_ input: Int) -> Subscribers.Demand {
            inside.withLock {
                if $0.inSubscription { $0.overlaps += 1 }
                $0.values.append(input)
            }
            return .none
        }

        func receive(completion: Subscribers.Completion<Never>) {}
    }

    func testRequestFromAnotherThreadDuringReceiveSubscriptionIsEmittedAfterItReturns() {
        for _ in 0..<20 {
            let subscriber = HandingOffSubscriber()
            withWatchdog("subscribe") { (0..<100).publisher.subscribe(subscriber) }
            let state = subscriber.inside.withLock { $0 }
            XCTAssertEqual(state.overlaps, 0, "receive(_:) ran during receive(subscription:)")
            XCTAssertEqual(state.values, Array(0..<100), "the demand requested meanwhile is honoured afterwards")
        }
    }

    func testTheSameThroughFlatMap() {
        let received = LockedBox<[Int]>([])
        let cancellable = (0..<50).publisher.flatMap(maxPublishers: .max(2)) { [$0 * 10, $0 * 10 + 1].publisher }
            .sink { value in received.withLock { $0.append(value) } }
        XCTAssertEqual(received.withLock { $0.count }, 100)
        cancellable.cancel()
    }
}

/// Carries a non-Sendable value to another thread in a test that synchronizes the hand-over itself.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
