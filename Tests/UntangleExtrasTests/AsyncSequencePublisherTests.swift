import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class AsyncSequencePublisherTests: XCTestCase {
    func testPublishesEveryElementThenFinishes() {
        let stream = AsyncStream<Int> { continuation in
            for i in 1...3 { continuation.yield(i) }
            continuation.finish()
        }
        let recorder = Recorder<Int, any Error>()
        stream.publisher.subscribe(recorder)
        recorder.waitForCompletion()
        XCTAssertEqual(recorder.values, [1, 2, 3])
        guard case .finished = recorder.completion else { return XCTFail("expected .finished") }
    }

    func testNothingIsPulledBeforeTheFirstRequestThenOnePerDemand() {
        let sequence = CountingSequence()
        let recorder = Recorder<Int, any Error>(initialDemand: nil)
        AsyncSequencePublisher(sequence).subscribe(recorder)
        XCTAssertEqual(sequence.pulls.withLock { $0 }, 0)
        recorder.request(.max(2))
        recorder.waitForValues(2)
        XCTAssertEqual(recorder.values, [0, 1])
        XCTAssertEqual(sequence.pulls.withLock { $0 }, 2, "the sequence does not run ahead of demand")
        recorder.request(.max(1))
        recorder.waitForValues(3)
        XCTAssertEqual(recorder.values, [0, 1, 2])
        XCTAssertEqual(sequence.pulls.withLock { $0 }, 3)
        recorder.cancel()
    }

    func testDemandReturnedFromReceiveCounts() {
        let sequence = CountingSequence()
        let recorder = Recorder<Int, any Error>(initialDemand: .max(1)) { _, value in value < 4 ? .max(1) : .none }
        sequence.publisher.subscribe(recorder)
        recorder.waitForValues(5)
        XCTAssertEqual(recorder.values, [0, 1, 2, 3, 4])
        recorder.cancel()
        XCTAssertEqual(sequence.pulls.withLock { $0 }, 5)
    }

    func testAThrownErrorIsTheFailure() {
        let recorder = Recorder<Int, any Error>()
        ThrowingSequence(elements: [7], error: BridgeTestError(code: 2)).publisher.subscribe(recorder)
        recorder.waitForCompletion()
        XCTAssertEqual(recorder.values, [7])
        guard case .failure(let error) = recorder.completion else { return XCTFail("expected a failure") }
        XCTAssertEqual(error as? BridgeTestError, BridgeTestError(code: 2))
    }

    /// Cancelling while the iterator waits in `next()` cancels the task, which the sequence observes (an
    /// `AsyncStream` runs its `onTermination` with `.cancelled`), and nothing more reaches the subscriber. The cancel
    /// is made only once the iterator is known to be inside `next()`: an iterator between two `next()` calls is not
    /// pulled again (see the type's documentation), so only this case promises that the sequence hears of it.
    func testCancelWhileWaitingInNextCancelsTheIterationAndNothingFollows() {
        let terminated = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        continuation.onTermination = { termination in
            if case .cancelled = termination { terminated.signal() }
        }
        let recorder = Recorder<Int, any Error>()
        EnteringSequence(base: stream, entered: entered).publisher.subscribe(recorder)
        XCTAssertEqual(entered.wait(timeout: .now() + 30), .success, "watchdog: the first next() never started")
        continuation.yield(1)
        recorder.waitForValues(1)
        XCTAssertEqual(entered.wait(timeout: .now() + 30), .success, "watchdog: the second next() never started")
        recorder.cancel()
        XCTAssertEqual(terminated.wait(timeout: .now() + 30), .success, "watchdog: the task was not cancelled")
        continuation.yield(2)
        continuation.finish()
        XCTAssertEqual(recorder.values, [1])
        XCTAssertNil(recorder.completion, "no completion after cancel")
    }

    func testCancelFromInsideReceiveSubscriptionNeverStartsTheTask() {
        let sequence = CountingSequence()
        let recorder = Recorder<Int, any Error>(initialDemand: nil)
        let publisher = sequence.publisher.handleEvents(receiveSubscription: { $0.cancel() })
        publisher.subscribe(recorder)
        recorder.request(.max(3))
        XCTAssertEqual(sequence.pulls.withLock { $0 }, 0)
        XCTAssertTrue(recorder.values.isEmpty)
    }

    func testEachSubscriptionIteratesOnItsOwn() {
        let publisher = [1, 2].async.publisher
        let first = Recorder<Int, any Error>()
        let second = Recorder<Int, any Error>()
        publisher.subscribe(first)
        publisher.subscribe(second)
        first.waitForCompletion()
        second.waitForCompletion()
        XCTAssertEqual(first.values, [1, 2])
        XCTAssertEqual(second.values, [1, 2])
    }

    func testTheSubscriberIsReleasedAfterCompletionAndAfterCancel() {
        weak var finished: Recorder<Int, any Error>?
        weak var cancelled: Recorder<Int, any Error>?
        do {
            let recorder = Recorder<Int, any Error>()
            finished = recorder
            [1].async.publisher.subscribe(recorder)
            recorder.waitForCompletion()
            let other = Recorder<Int, any Error>(initialDemand: nil)
            cancelled = other
            CountingSequence().publisher.subscribe(other)
            other.cancel()
        }
        // The task lets go of the finished subscriber when its `receive(completion:)` returns, just after the
        // recorder saw the completion: wait for that (30 s watchdog) by yielding, not sleeping.
        let deadline = Date().addingTimeInterval(30)
        while finished != nil && Date() < deadline { sched_yield() }
        XCTAssertNil(finished)
        XCTAssertNil(cancelled)
    }
}

/// Requests and cancels from several threads while the subscription's task delivers.
final class AsyncSequencePublisherConcurrencyTests: XCTestCase {
    func testRequestsFromManyThreadsAddUpAndDeliveriesNeverOverlap() {
        let sequence = CountingSequence()
        let recorder = Recorder<Int, any Error>(initialDemand: nil)
        sequence.publisher.subscribe(recorder)
        runConcurrently(threads: 4) { _ in
            for _ in 0..<250 { recorder.request(.max(1)) }
        }
        recorder.waitForValues(1_000)
        XCTAssertEqual(recorder.values, Array(0..<1_000))
        XCTAssertEqual(recorder.maximumOverlap, 1)
        recorder.cancel()
        XCTAssertEqual(sequence.pulls.withLock { $0 }, 1_000, "never more than requested")
    }

    func testCancelRacingDeliveryNeverDeliversACompletion() {
        for _ in 0..<200 {
            let recorder = Recorder<Int, any Error>()
            CountingSequence().publisher.subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 { recorder.cancel() } else { recorder.request(.max(5)) }
            }
            XCTAssertNil(recorder.completion)
            XCTAssertEqual(recorder.maximumOverlap, 1)
        }
    }
}

extension Array where Element == Int {
    /// The array as a multi-pass AsyncSequence (test helper; an AsyncStream has only one consumer).
    fileprivate var async: FiniteSequence { FiniteSequence(elements: self) }
}

/// Wraps an `AsyncStream` and signals each time its iterator enters `next()`, so a test can act while it waits.
private struct EnteringSequence: AsyncSequence, @unchecked Sendable {
    typealias Element = Int
    let base: AsyncStream<Int>
    let entered: DispatchSemaphore

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Int>.Iterator
        let entered: DispatchSemaphore

        mutating func next() async -> Int? {
            entered.signal()
            return await base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), entered: entered)
    }
}
