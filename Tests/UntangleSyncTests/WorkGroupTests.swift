import Foundation
import Testing
import UntangleSync
import XCTest

private struct TaskFailed: Error, Equatable {
    let index: Int
}

final class WorkGroupTests: XCTestCase {
    func testNotifyWithNoTasksRunsOnceWithNoResults() {
        let group = WorkGroup<Int>()
        let notified = expectation(description: "notify")
        group.notify(queue: .global()) { results in
            XCTAssertTrue(results.isEmpty)
            notified.fulfill()
        }
        wait(for: [notified], timeout: 30)
    }

    func testResultsComeInAddOrderWithValuesAndErrors() async {
        let group = WorkGroup<Int>()
        let later = DispatchQueue(label: "later")
        group.add { complete in later.async { complete(.success(0)) } }
        group.add { complete in complete(.failure(TaskFailed(index: 1))) }
        group.add { 2 }
        group.add { throw TaskFailed(index: 3) }
        let results = await group.wait()
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(try? results[0].get(), 0)
        XCTAssertEqual(results[1].failure as? TaskFailed, TaskFailed(index: 1))
        XCTAssertEqual(try? results[2].get(), 2)
        XCTAssertEqual(results[3].failure as? TaskFailed, TaskFailed(index: 3))
    }

    func testNotifyRunsOnTheGivenQueueOnlyAfterTheLastCompletion() {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "notify-here")
        queue.setSpecific(key: key, value: "notify-here")
        let group = WorkGroup<Void>()
        let completions = LockedBox<[(@Sendable (Result<Void, any Error>) -> Void)]>([])
        let completedBeforeNotify = LockedBox(0)
        for _ in 0..<3 {
            group.add { complete in completions.withLock { $0.append(complete) } }
        }
        let notified = expectation(description: "notify")
        group.notify(queue: queue) { results in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "notify-here")
            XCTAssertEqual(completedBeforeNotify.withLock { $0 }, 3, "notify ran before every task had completed")
            XCTAssertEqual(results.count, 3)
            notified.fulfill()
        }
        for complete in completions.withLock({ $0 }) {
            completedBeforeNotify.withLock { $0 += 1 }
            complete(.success(()))
        }
        wait(for: [notified], timeout: 30)
    }

    func testEveryNotifyAndWaitGetsTheResultsExactlyOnce() async {
        let group = WorkGroup<String>()
        group.add { complete in complete(.success("a")) }
        let calls = LockedBox(0)
        let bothNotified = expectation(description: "both notify handlers")
        bothNotified.expectedFulfillmentCount = 2
        group.notify(queue: .global()) { _ in
            calls.withLock { $0 += 1 }
            bothNotified.fulfill()
        }
        let waited = await group.wait()
        group.notify(queue: .global()) { results in
            XCTAssertEqual(try? results.first?.get(), "a")
            calls.withLock { $0 += 1 }
            bothNotified.fulfill()
        }
        await fulfillment(of: [bothNotified], timeout: 30)
        XCTAssertEqual(waited.count, 1)
        XCTAssertEqual(calls.withLock { $0 }, 2)
    }
}

/// The misuses of a work group that trap, each with its message (in a child process).
@Suite struct WorkGroupTrapTests {
    @Test func aTaskCompletionCalledTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let group = WorkGroup<Int>()
            group.add { complete in
                complete(.success(1))
                complete(.success(2))
            }
        }
        #expect(
            result?.standardErrorText.contains("WorkGroup: the completion of task #0 was called more than once") == true
        )
    }

    @Test func addAfterNotifySealedTheGroupTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let group = WorkGroup<Int>()
            group.notify(queue: .global()) { _ in }
            group.add { complete in complete(.success(1)) }
        }
        #expect(
            result?.standardErrorText.contains(
                "WorkGroup: add(_:) was called after notify(queue:_:) or wait() sealed the group") == true)
    }
}

final class WorkGroupConcurrencyTests: XCTestCase {
    func testCompletionsFromManyThreadsAreAllCollected() {
        let group = WorkGroup<Int>()
        let completions = LockedBox<[(Int, @Sendable (Result<Int, any Error>) -> Void)]>([])
        for index in 0..<4_000 {
            group.add { complete in completions.withLock { $0.append((index, complete)) } }
        }
        let all = completions.withLock { $0 }
        let notified = expectation(description: "notify")
        let notifyCount = LockedBox(0)
        // Half of the completions race with the registration of notify.
        runConcurrently(threads: 8) { thread in
            if thread == 0 {
                group.notify(queue: .global()) { results in
                    notifyCount.withLock { $0 += 1 }
                    XCTAssertEqual(results.count, 4_000)
                    for (index, result) in results.enumerated() {
                        switch result {
                        case .success(let value): XCTAssertEqual(value, index)
                        case .failure(let error): XCTAssertEqual(error as? TaskFailed, TaskFailed(index: index))
                        }
                    }
                    notified.fulfill()
                }
            }
            for (index, complete) in all where index % 8 == thread {
                complete(index % 3 == 0 ? .failure(TaskFailed(index: index)) : .success(index))
            }
        }
        wait(for: [notified], timeout: 60)
        XCTAssertEqual(notifyCount.withLock { $0 }, 1)
    }

    func testAsyncTasksAndWaitersRacingToTheEnd() async {
        let group = WorkGroup<Int>()
        for index in 0..<500 {
            if index.isMultiple(of: 2) {
                group.add { index }
            } else {
                group.add { complete in DispatchQueue.global().async { complete(.success(index)) } }
            }
        }
        let allResults = await withTaskGroup(of: [Int].self) { waiters in
            for _ in 0..<8 {
                waiters.addTask { await group.wait().map { (try? $0.get()) ?? -1 } }
            }
            var collected: [[Int]] = []
            for await results in waiters { collected.append(results) }
            return collected
        }
        XCTAssertEqual(allResults.count, 8)
        for results in allResults {
            XCTAssertEqual(results, Array(0..<500))
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
