import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class RetryBackoffTests: XCTestCase {
    func testExponentialGrowthCapAndJitter() {
        let plain = RetryBackoff.exponential(initial: 0.5, multiplier: 2, maxDelay: 3)
        XCTAssertEqual((1...5).map { plain.delay(beforeRetry: $0) }, [0.5, 1, 2, 3, 3])
        let jittered = RetryBackoff(initialDelay: 1, multiplier: 2, jitter: 0.5, random: { 0.5 })
        XCTAssertEqual(jittered.delay(beforeRetry: 3), 4 * 0.75)
        let full = RetryBackoff(initialDelay: 1, jitter: 1, random: { 0.999 })
        XCTAssertEqual(full.delay(beforeRetry: 1), 0.001, accuracy: 1e-9)
        XCTAssertEqual(RetryBackoff.constant(2).delay(beforeRetry: 7), 2)
        XCTAssertEqual(RetryBackoff.immediate.delay(beforeRetry: 1), 0)
        XCTAssertEqual(RetryBackoff.exponential(initial: 1, maxDelay: 60).delay(beforeRetry: 10_000), 60)
    }
}

final class RetryOperationTests: XCTestCase {
    func testRetriesWithBackoffInVirtualTimeUntilSuccess() {
        let scheduler = TestScheduler()
        var attempts: [(Int, Double)] = []
        var results: [Result<String, TestError>] = []
        let start = scheduler.now
        retry(
            maxAttempts: 5, backoff: .exponential(initial: 1), scheduler: scheduler,
            operation: { (attempt: Int, done: @escaping (Result<String, TestError>) -> Void) in
                attempts.append((attempt, opSeconds(start.distance(to: scheduler.now))))
                done(attempt < 3 ? .failure(TestError(attempt)) : .success("ok"))
            },
            completion: { results.append($0) })
        XCTAssertTrue(attempts.isEmpty, "the first attempt runs on the scheduler")
        scheduler.advance()
        XCTAssertEqual(attempts.map(\.0), [1])
        scheduler.advance(by: .milliseconds(999))
        XCTAssertEqual(attempts.map(\.0), [1])
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(attempts.map(\.0), [1, 2, 3])
        XCTAssertEqual(attempts.map(\.1), [0, 1, 3], "waits 1 s, then 2 s")
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(try? results.first?.get(), "ok")
    }

    func testGivesUpAfterMaxAttemptsOrWhenShouldRetrySaysNo() {
        let scheduler = TestScheduler()
        var results: [Result<Int, TestError>] = []
        var count = 0
        retry(
            maxAttempts: 3, backoff: .constant(1), scheduler: scheduler,
            operation: { (_: Int, done: @escaping (Result<Int, TestError>) -> Void) in
                count += 1
                done(.failure(TestError(count)))
            }, completion: { results.append($0) })
        scheduler.run()
        XCTAssertEqual(count, 3)
        XCTAssertEqual(results.map { if case .failure(let e) = $0 { e.code } else { -1 } }, [3])

        var fatal: [Result<Int, TestError>] = []
        var tries = 0
        retry(
            maxAttempts: 10, backoff: .immediate, scheduler: scheduler, shouldRetry: { $0.code != 99 },
            operation: { (_: Int, done: @escaping (Result<Int, TestError>) -> Void) in
                tries += 1
                done(.failure(TestError(99)))
            }, completion: { fatal.append($0) })
        scheduler.run()
        XCTAssertEqual(tries, 1)
        XCTAssertEqual(fatal.count, 1)
    }

    func testCancelStopsFurtherAttemptsAndDropsTheCompletion() {
        let scheduler = TestScheduler()
        var count = 0
        var completed = false
        let task = retry(
            maxAttempts: 5, backoff: .constant(1), scheduler: scheduler,
            operation: { (_: Int, done: @escaping (Result<Int, TestError>) -> Void) in
                count += 1
                done(.failure(TestError(0)))
            }, completion: { _ in completed = true })
        scheduler.advance()
        task.cancel()
        scheduler.run()
        XCTAssertEqual(count, 1)
        XCTAssertFalse(completed)
    }

    func testSecondDoneOfTheSameAttemptIsIgnored() {
        let scheduler = TestScheduler()
        var count = 0
        var results = 0
        retry(
            maxAttempts: 5, backoff: .constant(1), scheduler: scheduler,
            operation: { (_: Int, done: @escaping (Result<Int, TestError>) -> Void) in
                count += 1
                done(.failure(TestError(0)))
                done(.failure(TestError(0)))
                if count == 2 {
                    done(.success(1))  // ignored: this attempt already reported
                }
            }, completion: { _ in results += 1 })
        scheduler.run()
        XCTAssertEqual(count, 5, "one retry per failed attempt, not two")
        XCTAssertEqual(results, 1)
    }
}

final class RetryWhenTests: XCTestCase {
    func testTriggerValueResubscribesAndDemandCarriesOver() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let trigger = PassthroughSubject<Void, TestError>()
        var errors: [TestError] = []
        let recorder = Recorder<Int, TestError>(initialDemand: .max(3))
        source.retry(when: { stream in
            stream.handleEvents(receiveOutput: { errors.append($0) }).setFailureType(to: TestError.self)
                .flatMap { _ in trigger }
        }).subscribe(recorder)
        source.send(1)
        source.send(completion: .failure(TestError(1)))
        XCTAssertEqual(errors, [TestError(1)])
        XCTAssertEqual(source.subscriptions, 1, "waits for the trigger")
        trigger.send(())
        XCTAssertEqual(source.subscriptions, 2)
        source.send(2)
        source.finish()
        XCTAssertEqual(recorder.events, [.subscription("RetryWhen"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(
            source.history, [.subscribed, .request(.max(3)), .subscribed, .request(.max(2))],
            "the second attempt is asked for what is still outstanding")
    }

    func testTriggerFailureFailsAndTriggerFinishingWhileWaitingFinishes() {
        let failing = Fail<Int, TestError>(error: TestError(1))
        let recorder = Recorder<Int, TestError>()
        failing.retry(when: { errors in
            errors.setFailureType(to: TestError.self).tryMap { _ in throw TestError(2) }.mapError { $0 as! TestError }
        }).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("RetryWhen"), .completion(.failure(TestError(2)))])

        var attempts = 0
        let counted = Deferred { () -> Fail<Int, TestError> in
            attempts += 1
            return Fail(error: TestError(attempts))
        }
        let finishing = Recorder<Int, TestError>()
        counted.retry(when: { errors in errors.prefix(2).map { _ in () }.setFailureType(to: TestError.self) })
            .subscribe(finishing)
        XCTAssertEqual(attempts, 3, "the first attempt and two retries")
        XCTAssertEqual(
            finishing.events, [.subscription("RetryWhen"), .completion(.finished)],
            "trigger finished while a failure waited")

        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let trigger = PassthroughSubject<Void, TestError>()
        let running = Recorder<Int, TestError>()
        source.retry(when: { _ in trigger }).subscribe(running)
        source.send(completion: .failure(TestError(1)))
        trigger.send(())
        trigger.send(completion: .finished)
        XCTAssertEqual(running.events, [.subscription("RetryWhen")], "the running attempt goes on")
        source.send(5)
        source.send(completion: .failure(TestError(2)))
        XCTAssertEqual(running.events, [.subscription("RetryWhen"), .value(5), .completion(.failure(TestError(2)))])
    }

    func testCancelCancelsTheAttemptAndTheTriggerAndReleases() {
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let trigger = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
        weak var weakRecorder: Recorder<Int, TestError>?
        do {
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            source.retry(when: { _ in trigger }).subscribe(recorder)
            recorder.cancel()
            recorder.cancel()
        }
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertEqual(trigger.history, [.subscribed, .request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder)
    }

    // ReactiveX/RxSwift 9de36a77 (issue 573): a finished sequence's subscription, kept by its subscriber (in a dispose
    // bag), still held the operator and what it used until it was disposed. Once retry(when:) has finished, the
    // subscription its subscriber keeps holds neither the source nor the trigger (nor the handler that captured it).
    func testAFinishedRetryWhenKeepsNeitherTheSourceNorTheTriggerAlive() {
        weak var weakSource: ManualPublisher<Int, TestError>?
        weak var weakTrigger: ManualPublisher<Void, TestError>?
        let recorder = Recorder<Int, TestError>()
        do {
            let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
            let trigger = ManualPublisher<Void, TestError>(recordsSubscriptions: true)
            weakSource = source
            weakTrigger = trigger
            source.retry(when: { _ in trigger }).subscribe(recorder)
            source.send(completion: .failure(TestError(1)))
            trigger.send(())
            source.send(4)
            source.finish()
            XCTAssertEqual(trigger.history.last, .cancel)
        }
        XCTAssertEqual(recorder.events, [.subscription("RetryWhen"), .value(4), .completion(.finished)])
        XCTAssertNotNil(recorder.subscription, "the subscriber keeps its subscription")
        XCTAssertNil(weakSource)
        XCTAssertNil(weakTrigger)
    }

    func testBackoffPublisherRetriesOnTheSchedulerThenGivesUp() {
        let scheduler = TestScheduler()
        var attempts: [Double] = []
        let start = scheduler.now
        let source = Deferred { () -> Fail<Int, TestError> in
            attempts.append(opSeconds(start.distance(to: scheduler.now)))
            return Fail(error: TestError(attempts.count))
        }
        let recorder = Recorder<Int, TestError>()
        source.retry(2, backoff: .exponential(initial: 1), scheduler: scheduler).subscribe(recorder)
        XCTAssertEqual(attempts, [0])
        scheduler.advance(by: .milliseconds(999))
        XCTAssertEqual(attempts, [0])
        scheduler.run()
        XCTAssertEqual(attempts, [0, 1, 3])
        XCTAssertEqual(recorder.events, [.subscription("RetryWhen"), .completion(.failure(TestError(3)))])
    }

    func testBackoffPublisherSucceedsAfterAFailureAndHonoursShouldRetry() {
        let scheduler = TestScheduler()
        var attempts = 0
        let flaky = Deferred { () -> AnyPublisher<Int, TestError> in
            attempts += 1
            return attempts < 2
                ? Fail(error: TestError(7)).eraseToAnyPublisher()
                : Just(42).setFailureType(
                    to: TestError.self
                ).eraseToAnyPublisher()
        }
        let recorder = Recorder<Int, TestError>()
        flaky.retry(3, backoff: .constant(0.5), scheduler: scheduler).subscribe(recorder)
        scheduler.run()
        XCTAssertEqual(recorder.events, [.subscription("RetryWhen"), .value(42), .completion(.finished)])

        let fatal = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(99)).retry(
            3, backoff: .constant(0.5), scheduler: scheduler, shouldRetry: { $0.code != 99 }
        ).subscribe(fatal)
        XCTAssertEqual(fatal.events, [.subscription("RetryWhen"), .completion(.failure(TestError(99)))])
    }
}

final class RetryConcurrencyTests: XCTestCase {
    func testDoneFromManyThreadsCompletesOnce() {
        let scheduler = TestScheduler()
        let completions = Counter()
        let dones = LockedBoxOfDone()
        retry(
            maxAttempts: 1, backoff: .immediate, scheduler: scheduler,
            operation: { (_: Int, done: @escaping (Result<Int, TestError>) -> Void) in dones.set(done) },
            completion: { _ in completions.add(1) })
        scheduler.advance()
        runConcurrently(threads: 4) { thread in
            for i in 0..<100 { dones.call(.success(thread * 100 + i)) }
        }
        XCTAssertEqual(completions.value, 1)
    }
}

private final class LockedBoxOfDone: @unchecked Sendable {
    private let lock = NSLock()
    private var done: ((Result<Int, TestError>) -> Void)?
    func set(_ done: @escaping (Result<Int, TestError>) -> Void) {
        lock.lock()
        self.done = done
        lock.unlock()
    }
    func call(_ result: Result<Int, TestError>) {
        lock.lock()
        let done = self.done
        lock.unlock()
        done?(result)
    }
}
