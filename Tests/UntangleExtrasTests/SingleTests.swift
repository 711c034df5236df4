import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class SingleTests: XCTestCase {
    func testValueConstructorSendsTheValueThenFinishes() {
        let recorder = Recorder<Int, TestError>()
        Single<Int, TestError>(1).subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testErrorConstructorFails() {
        let recorder = Recorder<Int, TestError>()
        Single<Int, TestError>(error: TestError(2)).subscribe(recorder)
        XCTAssertEqual(recorder.values, [])
        XCTAssertEqual(recorder.completions, [.failure(TestError(2))])
    }

    func testPromiseRunsPerSubscriptionAndOnlyTheFirstCallCounts() {
        let runs = LockedBox(0)
        let single = Single<Int, TestError> { promise in
            let run = runs.withLock {
                $0 += 1; return $0
            }
            promise(.success(run))
            promise(.success(99))
            promise(.failure(TestError()))
        }
        let first = Recorder<Int, TestError>()
        let second = Recorder<Int, TestError>()
        single.subscribe(first)
        single.subscribe(second)
        XCTAssertEqual(first.values, [1])
        XCTAssertEqual(first.completions, [.finished])
        XCTAssertEqual(second.values, [2])
    }

    func testValueWaitsForDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        Single<Int, TestError>(5).map { $0 * 2 }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [10])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testCreateRunsItsTeardownOnCancel() {
        let teardowns = LockedBox(0)
        let single = Single<Int, TestError>.create { _ in AnyCancellable { teardowns.withLock { $0 += 1 } } }
        let recorder = Recorder<Int, TestError>()
        single.subscribe(recorder)
        recorder.cancel()
        XCTAssertEqual(teardowns.withLock { $0 }, 1)
    }

    func testAsSingleAcceptsExactlyOneValue() {
        let recorder = Recorder<Int, any Error>()
        Just(3).asSingle().subscribe(recorder)
        XCTAssertEqual(recorder.values, [3])
        XCTAssertEqual(recorder.completions.count, 1)
        guard case .finished = recorder.completions.first else { return XCTFail("\(recorder.events)") }
    }

    func testAsSingleFailsWithNoValueOnAnEmptyUpstream() {
        let recorder = Recorder<Int, any Error>()
        Empty<Int, Never>().asSingle().subscribe(recorder)
        guard case .failure(let error) = recorder.completions.first else { return XCTFail("\(recorder.events)") }
        XCTAssertEqual(error as? TraitViolation, .noValue)
    }

    func testAsSingleFailsWithMoreThanOneValueAndCancelsUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.asSingle { _ in TestError(99) }.subscribe(recorder)
        upstream.send(1)
        XCTAssertEqual(recorder.values, [], "the value waits for the upstream to finish")
        upstream.send(2)
        XCTAssertEqual(recorder.completions, [.failure(TestError(99))])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testAsSingleRequestsUpstreamOnlyOnceTheSubscriberAsksAndDeliversTheValueWithinDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.asSingle { _ in TestError(99) }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [])
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.values, [1])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testAsSingleDeliversTheValueWhenDemandArrivesAfterTheUpstreamFinished() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.asSingle { _ in TestError(99) }.subscribe(recorder)
        // Another subscriber's request is not needed: the trait asks for .unlimited on the first request only.
        recorder.request(.max(1))
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testAsSinglePassesUpstreamFailuresThrough() {
        let recorder = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(5)).asSingle { _ in TestError(99) }.subscribe(recorder)
        XCTAssertEqual(recorder.completions, [.failure(TestError(5))])
    }

    func testAsSingleHandsEachBrokenPromiseToItsViolationClosure() {
        let seen = LockedBox([TraitViolation]())
        let violation: (TraitViolation) -> TestError = { violation in
            seen.withLock { $0.append(violation) }
            return TestError(99)
        }
        let empty = Recorder<Int, TestError>()
        Empty<Int, TestError>().asSingle(violation: violation).subscribe(empty)
        XCTAssertEqual(empty.completions, [.failure(TestError(99))])
        [1, 2].publisher.setFailureType(to: TestError.self).asSingle(violation: violation)
            .subscribe(Recorder<Int, TestError>())
        Just(1).setFailureType(to: TestError.self).asSingle(violation: violation).subscribe(Recorder<Int, TestError>())
        XCTAssertEqual(seen.withLock { $0 }, [.noValue, .moreThanOneValue])
    }

    func testMapErrorTryMapCatchAndReplaceErrorKeepTheTrait() {
        let recorder = Recorder<Int, TestError>()
        Single<Int, TestError>(error: TestError(1))
            .mapError { TestError($0.code + 1) }
            .catch { error in Single<Int, TestError>(error.code * 10) }
            .subscribe(recorder)
        XCTAssertEqual(recorder.values, [20])

        let thrown = Recorder<Int, any Error>()
        Single<Int, TestError>(1).tryMap { _ -> Int in throw TestError(8) }.subscribe(thrown)
        guard case .failure(let error) = thrown.completions.first else { return XCTFail("\(thrown.events)") }
        XCTAssertEqual(error as? TestError, TestError(8))

        let replaced = Recorder<Int, Never>()
        Single<Int, TestError>(error: TestError()).replaceError(with: 0).subscribe(replaced)
        XCTAssertEqual(replaced.values, [0])
    }

    func testFlatMapContinuesWithTheInnerSingleAndForwardsFailures() {
        let recorder = Recorder<String, TestError>()
        Single<Int, TestError>(2).flatMap { Single<String, TestError>("n\($0)") }.subscribe(recorder)
        XCTAssertEqual(recorder.values, ["n2"])
        XCTAssertEqual(recorder.completions, [.finished])

        let failing = Recorder<String, TestError>()
        Single<Int, TestError>(error: TestError(3)).flatMap { Single<String, TestError>("n\($0)") }.subscribe(failing)
        XCTAssertEqual(failing.completions, [.failure(TestError(3))])

        let innerFailing = Recorder<String, TestError>()
        Single<Int, TestError>(1).flatMap { _ in Single<String, TestError>(error: TestError(4)) }.subscribe(
            innerFailing)
        XCTAssertEqual(innerFailing.completions, [.failure(TestError(4))])
    }

    func testFlatMapCancelStopsTheInnerSingle() {
        let teardowns = LockedBox(0)
        let recorder = Recorder<Int, TestError>()
        Single<Int, TestError>(1)
            .flatMap { _ in Single<Int, TestError>.create { _ in AnyCancellable { teardowns.withLock { $0 += 1 } } } }
            .subscribe(recorder)
        XCTAssertEqual(teardowns.withLock { $0 }, 0)
        recorder.cancel()
        XCTAssertEqual(teardowns.withLock { $0 }, 1)
    }

    func testFlatMapCancelledBeforeItsFirstSubscriptionArrivedCancelsThatSubscriptionOnArrival() {
        let source = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        source.asSingle { _ in TestError(0) }.flatMap { Single<Int, TestError>($0 + 1) }.subscribe(recorder)
        recorder.cancel()
        let upstream = LoggingSubscription()
        source.subscriber?.receive(subscription: upstream)
        XCTAssertEqual(upstream.log, ["cancel"], "nothing requested: the chain had ended")
        XCTAssertEqual(recorder.values, [])
    }

    func testConversionsToMaybeAndCompletable() {
        let maybe = Recorder<Int, TestError>()
        Single<Int, TestError>(1).asMaybe().subscribe(maybe)
        XCTAssertEqual(maybe.values, [1])
        let completable = Recorder<Never, TestError>()
        Single<Int, TestError>(1).asCompletable().subscribe(completable)
        XCTAssertEqual(completable.completions, [.finished])
    }

    func testAsyncValue() async throws {
        let value = try await Single<Int, TestError> { promise in
            DispatchQueue.global().async { promise(.success(42)) }
        }.value
        XCTAssertEqual(value, 42)
        do {
            _ = try await Single<Int, TestError>(error: TestError(6)).value
            XCTFail("expected a failure")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(6))
        }
    }

    func testAsyncValueThrowsCancellationErrorAndCancelsTheSubscriptionWhenTheTaskIsCancelled() async {
        let cancelled = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let single = Single<Int, TestError>.create { _ in
            started.signal()
            return AnyCancellable { cancelled.signal() }
        }
        let task = Task { try await single.value }
        XCTAssertEqual(started.wait(timeout: .now() + 30), .success)
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else { return XCTFail("expected a failure") }
        XCTAssertTrue(error is CancellationError)
        XCTAssertEqual(cancelled.wait(timeout: .now() + 30), .success)
    }
}

final class SingleConcurrencyTests: XCTestCase {
    /// Promises fulfilled from 8 threads at once: each subscriber receives exactly one result, then nothing.
    func testRacingPromiseCallsDeliverExactlyOneResult() {
        for _ in 0..<100 {
            let promiseBox = LockedBox<TraitPromise<Int, TestError>?>(nil)
            let single = Single<Int, TestError> { promise in promiseBox.withLock { $0 = promise } }
            let recorder = Recorder<Int, TestError>()
            single.subscribe(recorder)
            let promise = promiseBox.withLock { $0 }!
            runConcurrently(threads: 8) { thread in
                promise(thread % 2 == 0 ? .success(thread) : .failure(TestError(thread)))
            }
            let signals = recorder.events
            switch signals.count {
            case 3:
                guard case .value = signals[1], case .completion(.finished) = signals[2] else {
                    return XCTFail("\(signals)")
                }
            case 2:
                guard case .completion(.failure) = signals[1] else { return XCTFail("\(signals)") }
            default:
                XCTFail("\(signals)")
            }
        }
    }

    // ReactiveX/RxSwift d2ca6aba, b58ee89a and abbd27bc: awaiting a trait's value first hung when the subscription
    // ended without a result, then resumed its continuation twice (a crash) when the task's cancellation raced the
    // result, then deadlocked that cancellation against the result. Each await ends once, with the value or with
    // CancellationError, whichever comes first.
    func testAnAwaitedValueRacingTheTasksCancellationEndsOnceWithTheValueOrCancellation() async {
        for round in 0..<200 {
            let promiseBox = LockedBox<TraitPromise<Int, TestError>?>(nil)
            let subscribed = DispatchSemaphore(value: 0)
            let single = Single<Int, TestError> { promise in
                promiseBox.withLock { $0 = promise }
                subscribed.signal()
            }
            let task = Task { try await single.value }
            XCTAssertEqual(subscribed.wait(timeout: .now() + 30), .success)
            let promise = promiseBox.withLock { $0 }!
            DispatchQueue.global().async { promise(.success(round)) }
            task.cancel()
            switch await task.result {
            case .success(let value): XCTAssertEqual(value, round)
            case .failure(let error): XCTAssertTrue(error is CancellationError, "\(error)")
            }
        }
    }
}
