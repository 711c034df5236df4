import Foundation
import Untangle
import UntangleSync
import XCTest

final class RetryTests: XCTestCase {
    func testResubscribesUpToTheCountThenFails() {
        let subscriptions = LockedBox(0)
        let failing = Deferred { () -> Fail<Int, TestError> in
            let attempt = subscriptions.withLock {
                $0 += 1; return $0
            }
            return Fail(error: TestError(attempt))
        }
        let recorder = Recorder<Int, TestError>()
        failing.retry(2).subscribe(recorder)
        XCTAssertEqual(subscriptions.withLock { $0 }, 3)
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .completion(.failure(TestError(3)))])
    }

    func testCarriesDemandOverAndStopsRetryingOnSuccess() {
        let attempts = LockedBox(0)
        let source = Deferred { () -> Record<Int, TestError> in
            let attempt = attempts.withLock {
                $0 += 1; return $0
            }
            if attempt < 3 {
                return Record(output: [attempt * 10], completion: .failure(TestError(attempt)))
            }
            return Record(output: [1, 2, 3], completion: .finished)
        }
        let recorder = Recorder<Int, TestError>(initialDemand: .max(4))
        source.retry(5).subscribe(recorder)
        XCTAssertEqual(recorder.values, [10, 20, 1, 2], "4 requested in all, across three subscriptions")
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events,
            [.subscription("Retry"), .value(10), .value(20), .value(1), .value(2), .value(3), .completion(.finished)])
        XCTAssertEqual(attempts.withLock { $0 }, 3)
    }

    func testZeroCountDoesNotRetry() {
        let attempts = Counter()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        Deferred { () -> ManualPublisher<Int, TestError> in
            attempts.increment()
            return upstream
        }.retry(0).subscribe(recorder)
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(attempts.value, 1)
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .completion(.failure(TestError(4)))])
        XCTAssertEqual(upstream.history, [.request(.max(1))])
    }

    /// Combine retries forever for a negative count (Untangle used to treat it as zero).
    func testNegativeCountRetriesForeverLikeCombine() {
        let attempts = Counter()
        let source = Deferred { () -> Record<Int, TestError> in
            let attempt = attempts.increment()
            return attempt <= 50
                ? Record(output: [], completion: .failure(TestError(attempt)))
                : Record(output: [7], completion: .finished)
        }
        let recorder = Recorder<Int, TestError>()
        source.retry(-1).subscribe(recorder)
        XCTAssertEqual(attempts.value, 51)
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .value(7), .completion(.finished)])
        XCTAssertEqual(Publishers.Retry(upstream: Empty<Int, TestError>(), retries: -1).retries, -1)
    }

    func testTheSubscriberGetsItsSubscriptionWhenTheUpstreamSubscriptionArrives() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(3))
        upstream.retry(1).subscribe(recorder)
        XCTAssertEqual(recorder.events, [], "no subscription before the upstream's")
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        XCTAssertEqual(recorder.events, [.subscription("Retry")])
        XCTAssertEqual(subscription.history, [.request(.max(3))])
    }

    /// A completion arriving before the upstream's subscription is passed on, as in Combine, but after the subscriber
    /// was handed its subscription (Combine sends the completion alone; a subscriber hears of its subscription
    /// first).
    func testCompletionBeforeTheFirstSubscriptionIsPassedOnAfterTheSubscription() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.retry(1).subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .completion(.finished)])
        let late = LoggingUpstreamSubscription()
        upstream.send(subscription: late)
        XCTAssertEqual(late.history, [.cancel], "a subscription after the end is cancelled")
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .completion(.finished)])
    }

    func testAFailureBeforeTheFirstSubscriptionWithNoRetryLeftComesAfterTheSubscription() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.retry(0).subscribe(recorder)
        upstream.send(completion: .failure(TestError(3)))
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .completion(.failure(TestError(3)))])
    }

    func testACancelInsideTheLateHandOverStopsTheCompletion() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>(onSubscription: { _, subscription in subscription.cancel() })
        upstream.retry(1).subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Retry")], "nothing after the cancel")
    }

    /// Like Combine's, the subscriber given to the upstream is also a subscription: a request or a cancel made
    /// through it before the upstream's subscription arrives acts on the operator.
    func testTheUpstreamSideSubscriberIsAlsoASubscription() throws {
        let requested = UnsubscribedUpstream<Int, TestError>()
        requested.retry(2).subscribe(Recorder<Int, TestError>(initialDemand: nil))
        try XCTUnwrap(requested.operatorSubscription).request(.max(2))
        let first = LoggingUpstreamSubscription()
        requested.send(subscription: first)
        XCTAssertEqual(first.history, [.request(.max(2))])

        let cancelled = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        cancelled.retry(2).subscribe(recorder)
        try XCTUnwrap(cancelled.operatorSubscription).cancel()
        let second = LoggingUpstreamSubscription()
        cancelled.send(subscription: second)
        XCTAssertEqual(second.history, [.cancel])
        XCTAssertEqual(recorder.events, [])
    }

    /// Combine's retry requests the demand the subscriber returns from `receive(_:)` from the upstream instead of
    /// returning it.
    func testDemandReturnedFromReceiveIsRequestedUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1), onValue: { _, value in .max(value) })
        upstream.retry(1).subscribe(recorder)
        XCTAssertEqual(upstream.send(2), .none)
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(2))])
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(2)), .request(.max(2))])
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .value(2)])
    }

    /// A resubscribed upstream that sends a value before its subscription: delivered against the outstanding
    /// demand, which the subscription then asks for (less that value, plus what the subscriber returned).
    func testValueBeforeTheResubscriptionsSubscriptionUsesOutstandingDemand() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(3), onValue: { _, _ in .max(2) })
        upstream.retry(1).subscribe(recorder)
        let first = LoggingUpstreamSubscription()
        upstream.send(subscription: first)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(upstream.send(5), .none)
        let second = LoggingUpstreamSubscription()
        upstream.send(subscription: second)
        XCTAssertEqual(first.history, [.request(.max(3))])
        XCTAssertEqual(second.history, [.request(.max(4))])
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .value(5)])
    }

    /// Regression: an upstream failing synchronously while being subscribed made retry recurse once per attempt,
    /// and with a shared publisher each nested subscription saw the same failure again.
    func testSynchronousFailuresAreRetriedInALoopNotRecursively() {
        let nesting = OverlapGauge()
        let attempts = Counter()
        let source = Deferred { () -> NestingProbe in
            let attempt = attempts.increment()
            return NestingProbe(gauge: nesting, completion: attempt <= 5 ? .failure(TestError(attempt)) : .finished)
        }
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        source.retry(5).subscribe(recorder)
        XCTAssertEqual(attempts.value, 6)
        XCTAssertEqual(nesting.maximum, 1, "a resubscription ran inside the previous subscribe call")
        XCTAssertEqual(recorder.events, [.subscription("Retry"), .completion(.finished)])
    }

    func testACancelDuringTheRetryLoopEndsIt() {
        let attempts = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        let source = Deferred { () -> Fail<Int, TestError> in
            if attempts.increment() == 3 { recorder.cancel() }
            return Fail(error: TestError())
        }
        Publishers.Retry(upstream: source, retries: nil).subscribe(recorder)
        XCTAssertEqual(attempts.value, 3, "the failure of the attempt that cancelled is not retried")
        XCTAssertEqual(recorder.events, [.subscription("Retry")])
    }

    func testRetryHasAnEmptyMirrorLikeCombine() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.retry(1).subscribe(recorder)
        let subscription = recorder.subscription!
        XCTAssertEqual((subscription as? CustomReflectable)?.customMirror.children.count, 0)
        XCTAssertEqual((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Retry")
    }

    func testReleasesTheSubscriberAtCancelAndAtCompletion() {
        let upstream = ManualPublisher<Int, TestError>()
        assertSubscriptionReleasesSubscriber(upstream.retry(3)) { $0.cancel() }
        let failing = ManualPublisher<Int, TestError>()
        assertSubscriptionReleasesSubscriber(failing.retry(0)) { _ in
            failing.send(completion: .failure(TestError()))
        }
    }
}

final class RetryConcurrencyTests: XCTestCase {
    /// Cancel racing a failure: whichever wins, no resubscription is left running (it is either never made or
    /// cancelled) and the subscriber sees no completion.
    func testCancelRacingARetryLeavesNoLiveSubscription() {
        for _ in 0..<500 {
            let upstream = ManualPublisher<Int, TestError>()
            let subscribes = Counter()
            let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
            Deferred { () -> ManualPublisher<Int, TestError> in
                subscribes.increment()
                return upstream
            }.retry(1).subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 { upstream.send(completion: .failure(TestError())) } else { recorder.cancel() }
            }
            // With a resubscription, the cancel reached it (a failed subscription is never cancelled). A request
            // decided before the cancel took effect may be recorded after it: Reactive Streams rule 3.6 makes it a
            // no-op, as in CatchConcurrencyTests.
            let history = upstream.history
            XCTAssertTrue(
                subscribes.value == 1 || history.contains(.cancel), "resubscription left running: \(history)")
            XCTAssertEqual(recorder.events, [.subscription("Retry")])
        }
    }

    /// A cancel from another thread ends the loop resubscribing an upstream that always fails synchronously.
    func testCancelFromAnotherThreadEndsAnEndlessRetryLoop() {
        for _ in 0..<20 {
            let recorder = Recorder<Int, TestError>(initialDemand: nil)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    let source = Deferred { Fail<Int, TestError>(error: TestError()) }
                    Publishers.Retry(upstream: source, retries: nil).subscribe(recorder)
                } else {
                    while recorder.subscription == nil { sched_yield() }
                    recorder.cancel()
                }
            }
            XCTAssertEqual(recorder.events, [.subscription("Retry")])
        }
    }
}

/// Sends its subscription and then `completion` from inside `receive(subscriber:)`, measuring how deeply those
/// calls nest.
private struct NestingProbe: Publisher {
    typealias Output = Int
    typealias Failure = TestError
    let gauge: OverlapGauge
    let completion: Subscribers.Completion<TestError>

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        gauge.enter()
        defer { gauge.leave() }
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: completion)
    }
}
