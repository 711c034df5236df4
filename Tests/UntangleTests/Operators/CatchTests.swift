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
        let source = Deferred { () -> AnyPublisher<Int, TestError> in
            let attempt = attempts.withLock {
                $0 += 1; return $0
            }
            if attempt < 3 {
                return [attempt * 10].publisher.setFailureTypeForTest(TestError.self).append(
                    failure: TestError(attempt))
            }
            return [1, 2, 3].publisher.setFailureTypeForTest(TestError.self).eraseToAnyPublisher()
        }
        let recorder = Recorder<Int, TestError>(initialDemand: .max(4))
        source.retry(5).subscribe(recorder)
        XCTAssertEqual(recorder.values, [10, 20, 1, 2], "4 requested in all, across three subscriptions")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [10, 20, 1, 2, 3])
        XCTAssertEqual(recorder.completions, [.finished])
        XCTAssertEqual(attempts.withLock { $0 }, 3)
    }

    func testZeroAndNegativeCountsDoNotRetry() {
        for count in [0, -3] {
            let attempts = LockedBox(0)
            let recorder = Recorder<Int, TestError>()
            Deferred { () -> Fail<Int, TestError> in
                attempts.withLock { $0 += 1 }
                return Fail(error: TestError())
            }.retry(count).subscribe(recorder)
            XCTAssertEqual(attempts.withLock { $0 }, 1)
            XCTAssertEqual(recorder.completions, [.failure(TestError())])
        }
    }

    func testRetryHasAnEmptyMirrorLikeCombine() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.retry(1).subscribe(recorder)
        let subscription = recorder.subscription!
        XCTAssertEqual((subscription as? CustomReflectable)?.customMirror.children.count, 0)
        XCTAssertEqual((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Retry")
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
