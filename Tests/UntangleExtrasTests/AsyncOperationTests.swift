import Foundation
import UntangleExtras
import UntangleSync
import XCTest

/// An async operation that finishes only when `finishLater()` is called from outside, recording what it saw.
private final class ManualOperation: AsyncOperation, @unchecked Sendable {
    let mainCalls = LockedBox(0)
    let lockHeldInMain = LockedBox(false)
    private let started: XCTestExpectation?

    init(started: XCTestExpectation? = nil) {
        self.started = started
        super.init()
    }

    override func main() {
        lockHeldInMain.withLock { $0 = CalloutCheck.heldByCurrentThread != 0 }
        mainCalls.withLock { $0 += 1 }
        started?.fulfill()
    }
}

/// An async operation that finishes from another queue after it started.
private final class FinishesLaterOperation: AsyncOperation, @unchecked Sendable {
    let index: Int
    let log: LockedBox<[Int]>

    init(index: Int, log: LockedBox<[Int]>) {
        self.index = index
        self.log = log
        super.init()
    }

    override func main() {
        DispatchQueue.global().async {
            self.log.withLock { $0.append(self.index) }
            self.finish()
        }
    }
}

final class AsyncOperationTests: XCTestCase {
    func testStartAndFinishOutsideAQueueMoveThroughTheStates() {
        let operation = ManualOperation()
        XCTAssertTrue(operation.isAsynchronous)
        XCTAssertFalse(operation.isExecuting)
        XCTAssertFalse(operation.isFinished)
        operation.start()
        XCTAssertEqual(operation.mainCalls.withLock { $0 }, 1)
        XCTAssertFalse(operation.lockHeldInMain.withLock { $0 }, "main() was called with a library lock held")
        XCTAssertTrue(operation.isExecuting)
        XCTAssertFalse(operation.isFinished)
        operation.finish()
        XCTAssertFalse(operation.isExecuting)
        XCTAssertTrue(operation.isFinished)
        operation.finish()
        XCTAssertTrue(operation.isFinished, "a second finish() changes nothing")
    }

    func testFinishBeforeStartDoesNothing() {
        let operation = ManualOperation()
        operation.finish()
        XCTAssertFalse(operation.isFinished)
        operation.start()
        XCTAssertTrue(operation.isExecuting)
        operation.finish()
        XCTAssertTrue(operation.isFinished)
    }

    // The point of the class, verified on swift-corelibs-foundation: B depends on async A; the queue starts B only
    // after A's finish(), with no waitUntilAllOperationsAreFinished.
    func testDependentOperationStartsOnlyAfterFinish() {
        let queue = OperationQueue()
        let aStarted = expectation(description: "A started")
        let bRan = expectation(description: "B ran")
        let a = ManualOperation(started: aStarted)
        let finishCalled = LockedBox(false)
        let b = BlockOperation {
            XCTAssertTrue(finishCalled.withLock { $0 }, "B started before A's finish() was called")
            XCTAssertTrue(a.isFinished)
            bRan.fulfill()
        }
        b.addDependency(a)
        queue.addOperations([b, a], waitUntilFinished: false)
        wait(for: [aStarted], timeout: 30)
        XCTAssertFalse(b.isFinished)
        XCTAssertFalse(b.isExecuting)
        finishCalled.withLock { $0 = true }
        a.finish()
        wait(for: [bRan], timeout: 30)
    }

    func testFinishFreesTheQueueSlot() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let aStarted = expectation(description: "A started")
        let bRan = expectation(description: "B ran")
        let a = ManualOperation(started: aStarted)
        let b = BlockOperation { bRan.fulfill() }
        queue.addOperation(a)
        queue.addOperation(b)
        wait(for: [aStarted], timeout: 30)
        a.finish()
        wait(for: [bRan], timeout: 30)
        XCTAssertTrue(a.isFinished)
    }

    func testCancelledBeforeStartFinishesWithoutRunningMain() {
        let queue = OperationQueue()
        let operation = ManualOperation()
        operation.cancel()
        let dependentRan = expectation(description: "dependent ran")
        let dependent = BlockOperation { dependentRan.fulfill() }
        dependent.addDependency(operation)
        queue.addOperations([operation, dependent], waitUntilFinished: false)
        wait(for: [dependentRan], timeout: 30)
        XCTAssertTrue(operation.isFinished)
        XCTAssertFalse(operation.isExecuting)
        XCTAssertEqual(operation.mainCalls.withLock { $0 }, 0, "a cancelled operation ran main()")
    }

    func testChainOfAsyncOperationsRunsInDependencyOrder() {
        let queue = OperationQueue()
        let log = LockedBox<[Int]>([])
        let operations = (0..<50).map { FinishesLaterOperation(index: $0, log: log) }
        for index in 1..<operations.count {
            operations[index].addDependency(operations[index - 1])
        }
        let allDone = expectation(description: "chain done")
        let last = BlockOperation { allDone.fulfill() }
        last.addDependency(operations[operations.count - 1])
        queue.addOperations(operations.reversed() + [last], waitUntilFinished: false)
        wait(for: [allDone], timeout: 60)
        XCTAssertEqual(log.withLock { $0 }, Array(0..<50))
    }
}

final class AsyncOperationConcurrencyTests: XCTestCase {
    func testRacingFinishCallsFinishTheOperationOnce() {
        for _ in 0..<50 {
            let queue = OperationQueue()
            let started = expectation(description: "started")
            let operation = ManualOperation(started: started)
            let dependentRuns = LockedBox(0)
            let dependentRan = expectation(description: "dependent ran")
            let dependent = BlockOperation {
                dependentRuns.withLock { $0 += 1 }
                dependentRan.fulfill()
            }
            dependent.addDependency(operation)
            queue.addOperations([operation, dependent], waitUntilFinished: false)
            wait(for: [started], timeout: 30)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in operation.finish() }
            wait(for: [dependentRan], timeout: 30)
            XCTAssertTrue(operation.isFinished)
            XCTAssertEqual(dependentRuns.withLock { $0 }, 1)
        }
    }

    func testManyAsyncOperationsFinishingFromOtherThreadsAllComplete() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let log = LockedBox<[Int]>([])
        let operations = (0..<300).map { FinishesLaterOperation(index: $0, log: log) }
        let allDone = expectation(description: "all done")
        let last = BlockOperation { allDone.fulfill() }
        for operation in operations { last.addDependency(operation) }
        queue.addOperations(operations + [last], waitUntilFinished: false)
        wait(for: [allDone], timeout: 60)
        XCTAssertEqual(log.withLock { $0 }.sorted(), Array(0..<300))
        XCTAssertTrue(operations.allSatisfy { $0.isFinished && !$0.isExecuting })
    }
}
