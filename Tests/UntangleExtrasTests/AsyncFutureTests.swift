import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class AsyncFutureTests: XCTestCase {
    func testTheOperationRunsOnSubscriptionAndTheValueWaitsForDemand() {
        let ran = DispatchSemaphore(value: 0)
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        AsyncFuture { () async -> Int in
            ran.signal()
            return 42
        }.subscribe(recorder)
        XCTAssertEqual(ran.wait(timeout: .now() + 30), .success, "watchdog: the operation did not run")
        XCTAssertTrue(recorder.values.isEmpty)
        recorder.request(.max(1))
        recorder.waitForCompletion()
        XCTAssertEqual(recorder.values, [42])
        guard case .finished = recorder.completion else { return XCTFail("expected .finished") }
    }

    func testAThrownErrorIsTheFailure() {
        let recorder = Recorder<Int, any Error>()
        AsyncFuture { () async throws -> Int in throw BridgeTestError(code: 4) }.subscribe(recorder)
        recorder.waitForCompletion()
        XCTAssertTrue(recorder.values.isEmpty)
        guard case .failure(let error) = recorder.completion else { return XCTFail("expected a failure") }
        XCTAssertEqual(error as? BridgeTestError, BridgeTestError(code: 4))
    }

    func testCancellingTheSubscriptionCancelsTheOperationsTask() {
        let started = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let recorder = Recorder<Int, any Error>()
        AsyncFuture { () async throws -> Int in
            let (never, _) = AsyncStream.makeStream(of: Int.self)
            started.signal()
            // Waits for an element that never comes, until the task is cancelled.
            for await _ in never {}
            if Task.isCancelled { cancelled.signal() }
            throw CancellationError()
        }.subscribe(recorder)
        XCTAssertEqual(started.wait(timeout: .now() + 30), .success)
        recorder.cancel()
        XCTAssertEqual(cancelled.wait(timeout: .now() + 30), .success, "watchdog: the task was not cancelled")
        XCTAssertNil(recorder.completion, "the cancelled operation's error is dropped")
    }

    func testEachSubscriberRunsTheOperation() {
        let runs = LockedBox(0)
        let future = AsyncFuture { () async -> Int in runs.update { $0 + 1 } }
        let first = Recorder<Int, Never>()
        let second = Recorder<Int, Never>()
        future.subscribe(first)
        future.subscribe(second)
        first.waitForCompletion()
        second.waitForCompletion()
        XCTAssertEqual(runs.withLock { $0 }, 2)
        XCTAssertEqual(Set(first.values + second.values), [1, 2])
    }
}

final class FutureAsyncInitializerTests: XCTestCase {
    func testNonThrowingOperationRunsOnceAndIsShared() {
        let runs = LockedBox(0)
        let future = Future { () async -> Int in runs.update { $0 + 1 } * 10 }
        let first = Recorder<Int, Never>()
        let second = Recorder<Int, Never>()
        future.subscribe(first)
        first.waitForCompletion()
        future.subscribe(second)
        second.waitForCompletion()
        XCTAssertEqual(first.values, [10])
        XCTAssertEqual(second.values, [10])
        XCTAssertEqual(runs.withLock { $0 }, 1)
    }

    func testThrowingOperationFailsTheFuture() {
        let future = Future<Int, any Error> { () async throws -> Int in throw BridgeTestError(code: 6) }
        let recorder = Recorder<Int, any Error>()
        future.subscribe(recorder)
        recorder.waitForCompletion()
        guard case .failure(let error) = recorder.completion else { return XCTFail("expected a failure") }
        XCTAssertEqual(error as? BridgeTestError, BridgeTestError(code: 6))
    }

    func testPromiseInitializerStillWorksAlongside() {
        let future = Future<Int, Never> { promise in promise(.success(3)) }
        let recorder = Recorder<Int, Never>()
        future.subscribe(recorder)
        XCTAssertEqual(recorder.values, [3])
    }
}

/// Cancellation racing the operation's result, from another thread.
final class AsyncFutureConcurrencyTests: XCTestCase {
    func testCancelRacingTheResultDeliversAllOrNothing() {
        for round in 0..<200 {
            let recorder = Recorder<Int, Never>()
            AsyncFuture { () async -> Int in round }.subscribe(recorder)
            runConcurrently(threads: 2) { thread in
                if thread == 0 { recorder.cancel() } else { recorder.request(.max(1)) }
            }
            let values = recorder.values
            XCTAssertLessThanOrEqual(values.count, 1)
            if recorder.completion != nil { XCTAssertEqual(values, [round], "a completion comes after the value") }
            XCTAssertEqual(recorder.maximumOverlap, 1)
        }
    }
}
