import Foundation
import Untangle
import UntangleSync
import XCTest

final class CatchTests: XCTestCase {
    func testReplacesAFailedUpstreamAndCarriesOutstandingDemandOver() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(3))
        upstream.catch { _ in replacement }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(3))])
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(replacement.history, [.request(.max(2))], "3 requested, 1 delivered: 2 carry over")
        replacement.send(2)
        replacement.send(completion: .finished)
        XCTAssertEqual(
            recorder.events, [.subscription("Catch"), .value(1), .value(2), .completion(.finished)])
    }

    func testFinishedUpstreamNeverCallsTheHandler() {
        let recorder = Recorder<Int, Never>()
        var calls = 0
        [1, 2].publisher.setFailureTypeForTest(TestError.self).catch { _ -> Just<Int> in
            calls += 1
            return Just(0)
        }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(recorder.completions, [.finished])
        XCTAssertEqual(calls, 0)
    }

    func testReplacementFailureIsFinal() {
        let recorder = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(1)).catch { _ in Fail<Int, TestError>(error: TestError(2)) }
            .subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Catch"), .completion(.failure(TestError(2)))])
    }

    func testCancelReachesTheCurrentUpstreamOnly() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        upstream.catch { _ in replacement }.subscribe(recorder)
        upstream.send(completion: .failure(TestError()))
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(replacement.history, [.request(.unlimited), .cancel])
    }

    func testTryCatchThrowingEndsWithTheThrownError() {
        let recorder = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(1)).tryCatch { _ -> Just<Int> in throw TestError(7) }
            .subscribe(recorder)
        guard case .failure(let error as TestError)? = recorder.completions.first else { return XCTFail() }
        XCTAssertEqual(error, TestError(7))
        XCTAssertEqual(recorder.completions.count, 1)
    }

    func testTryCatchReplacement() {
        let recorder = Recorder<Int, Error>()
        Fail<Int, TestError>(error: TestError(1)).tryCatch { _ in Just(5) }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [5])
        XCTAssertEqual(recorder.completions.count, 1)
        guard case .finished? = recorder.completions.first else { return XCTFail() }
    }

    func testReleasesTheSubscriberAfterCancel() {
        let upstream = PassthroughSubject<Int, TestError>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            upstream.catch { _ in Empty<Int, Never>() }.subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        upstream.send(1)
        XCTAssertNil(weakRecorder)
    }

    func testTheSubscriberGetsItsSubscriptionWhenTheUpstreamSubscriptionArrives() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.catch { _ in Just(0) }.subscribe(recorder)
        XCTAssertEqual(recorder.events, [], "no subscription before the upstream's")
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        XCTAssertEqual(recorder.events, [.subscription("Catch")])
        XCTAssertEqual(subscription.history, [.request(.max(2))])
    }

    /// Combine's catch drops completions (and never calls its handler) before the upstream's subscription.
    func testCompletionsBeforeTheUpstreamSubscriptionAreDropped() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<Int, Never>()
        let handlerCalls = Counter()
        upstream.catch { _ -> Just<Int> in
            handlerCalls.increment()
            return Just(0)
        }.subscribe(recorder)
        upstream.send(completion: .failure(TestError()))
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [])
        XCTAssertEqual(handlerCalls.value, 0)
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        XCTAssertEqual(recorder.events, [.subscription("Catch")])
        XCTAssertEqual(subscription.history, [.request(.unlimited)])
    }

    /// Like Combine's catch, demand the subscriber returns from `receive(_:)` goes back to the upstream as the
    /// return value, and counts as outstanding for the replacement.
    func testDemandReturnedFromReceiveGoesBackToTheUpstreamAndCarriesOver() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2), onValue: { _, _ in .max(1) })
        upstream.catch { _ in replacement }.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(upstream.send(2), .max(1))
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        XCTAssertEqual(replacement.history, [.request(.max(2))])
        XCTAssertEqual(recorder.events, [.subscription("Catch"), .value(1), .value(2)])
    }

    /// Combine's catch passes `request(.none)` through instead of trapping.
    func testRequestNoneIsPassedThrough() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.catch { _ in Just(0) }.subscribe(recorder)
        recorder.request(.none)
        XCTAssertEqual(upstream.history, [.request(.none)])
        XCTAssertEqual(recorder.events, [.subscription("Catch")])
    }

    func testRequestsMadeWhileTheHandlerRunsCarryOver() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.catch { _ -> ManualPublisher<Int, Never> in
            recorder.request(.max(4))
            return replacement
        }.subscribe(recorder)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(upstream.history, [.request(.max(1))], "the failed upstream is not asked again")
        XCTAssertEqual(replacement.history, [.request(.max(5))])
        XCTAssertEqual(recorder.events, [.subscription("Catch")])
    }

    func testACancelWhileTheHandlerRunsSubscribesNoReplacement() {
        let upstream = ManualPublisher<Int, TestError>()
        let subscribed = Counter()
        let recorder = Recorder<Int, Never>()
        upstream.catch { _ -> Deferred<Just<Int>> in
            recorder.cancel()
            return Deferred {
                subscribed.increment()
                return Just(0)
            }
        }.subscribe(recorder)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(subscribed.value, 0)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(recorder.events, [.subscription("Catch")])
    }

    /// Regression: Untangle passed on values sent after tryCatch ended with the error its handler threw (Combine
    /// does too; the contract forbids anything after a completion).
    func testNothingReachesTheSubscriberAfterTheHandlerThrew() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, Error>()
        let handlerCalls = Counter()
        upstream.tryCatch { _ -> Just<Int> in
            handlerCalls.increment()
            throw TestError(2)
        }.subscribe(recorder)
        upstream.send(completion: .failure(TestError(1)))
        XCTAssertEqual(upstream.send(3), .none)
        upstream.send(completion: .failure(TestError(1)))
        XCTAssertEqual(describe(recorder), ["subscription(TryCatch)", "failure(TestError(2))"])
        XCTAssertEqual(handlerCalls.value, 1)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testReplacementSendingBeforeItsSubscriptionUsesOutstandingDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.catch { _ in replacement }.subscribe(recorder)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(replacement.send(8), .none)
        let subscription = LoggingUpstreamSubscription()
        replacement.send(subscription: subscription)
        XCTAssertEqual(subscription.history, [.request(.max(1))])
        XCTAssertEqual(recorder.events, [.subscription("Catch"), .value(8)])
    }

    func testReleasesTheSubscriberAtCompletion() {
        let upstream = ManualPublisher<Int, TestError>()
        let replacement = ManualPublisher<Int, Never>()
        assertSubscriptionReleasesSubscriber(upstream.catch { _ in replacement }) { _ in
            upstream.send(completion: .failure(TestError()))
            replacement.send(completion: .finished)
        }
    }

    func testCatchMirrorsItsDownstreamAndOutstandingDemandLikeCombine() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.catch { _ in Just(0) }.subscribe(recorder)
        let subscription = recorder.subscription!
        XCTAssertEqual(String(describing: subscription), "Catch")
        let children = (subscription as? CustomReflectable)?.customMirror.children.map { $0 }
        XCTAssertEqual(children?.map(\.label), ["downstream", "demand"])
        XCTAssertEqual(children.map { "\($0[1].value)" }, "max(2)")
        XCTAssertEqual((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Catch")
    }
}

final class CatchConcurrencyTests: XCTestCase {
    /// Cancel racing the failover: either the replacement is never subscribed or it is cancelled; the downstream
    /// gets nothing after cancel returned.
    func testCancelRacingFailoverLeavesNoLiveReplacement() {
        for _ in 0..<500 {
            let upstream = PassthroughSubject<Int, TestError>()
            let replacement = ManualPublisher<Int, Never>()
            let recorder = Recorder<Int, Never>()
            upstream.catch { _ in replacement }.subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 { upstream.send(completion: .failure(TestError())) } else { recorder.cancel() }
            }
            // The replacement is either never subscribed or cancelled. A request racing the cancel may reach it
            // after the cancel (the request was decided before the cancel took effect); Reactive Streams rule 3.6
            // makes such a request a no-op, and every Untangle subscription ignores it.
            let history = replacement.history
            XCTAssertTrue(history.isEmpty || history.contains(.cancel), "replacement left running: \(history)")
            XCTAssertTrue(recorder.completions.isEmpty)
        }
    }
}

// Local helpers (setFailureType and append(failure:) without depending on operators tested elsewhere).
extension Publisher where Failure == Never {
    fileprivate func setFailureTypeForTest<E: Error>(_: E.Type) -> AnyPublisher<Output, E> {
        let upstream = self
        return Deferred { () -> PassthroughSubjectBridge<Output, E> in
            PassthroughSubjectBridge(upstream.eraseToAnyPublisher())
        }.eraseToAnyPublisher()
    }
}

extension AnyPublisher {
    fileprivate func append(failure: Failure) -> AnyPublisher<Output, Failure> {
        let values = Record<Output, Failure>(output: collectSync(), completion: .failure(failure))
        return values.eraseToAnyPublisher()
    }

    private func collectSync() -> [Output] {
        var out: [Output] = []
        _ = sink(receiveCompletion: { _ in }, receiveValue: { out.append($0) })
        return out
    }
}

/// Re-types a never-failing publisher's stream (values and finish) for the failure type under test.
private struct PassthroughSubjectBridge<Output, Failure: Error>: Publisher {
    let upstream: AnyPublisher<Output, Never>
    init(_ upstream: AnyPublisher<Output, Never>) { self.upstream = upstream }
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        var values: [Output] = []
        _ = upstream.sink { values.append($0) }
        Record<Output, Failure>(output: values, completion: .finished).subscribe(subscriber)
    }
}
