import Foundation
import Untangle
import UntangleSync
import XCTest

final class OperationQueueSchedulerTests: XCTestCase {
    typealias Stride = OperationQueue.SchedulerTimeType.Stride
    typealias Time = OperationQueue.SchedulerTimeType

    private func makeQueue() -> OperationQueue {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    func testScheduleRunsOnTheQueue() {
        let queue = makeQueue()
        let ran = expectation(description: "ran")
        queue.schedule {
            XCTAssertTrue(OperationQueue.current === queue)
            ran.fulfill()
        }
        wait(for: [ran], timeout: 30)
    }

    func testAfterRunsNotBeforeTheDateAndInDateOrder() {
        let queue = makeQueue()
        let order = LockedBox<[Int]>([])
        let done = expectation(description: "both ran")
        done.expectedFulfillmentCount = 2
        let early = queue.now.advanced(by: .milliseconds(20))
        let late = queue.now.advanced(by: .milliseconds(60))
        queue.schedule(after: late) {
            XCTAssertGreaterThanOrEqual(Date(), late.date)
            XCTAssertTrue(OperationQueue.current === queue)
            order.withLock { $0.append(2) }
            done.fulfill()
        }
        queue.schedule(after: early) {
            XCTAssertGreaterThanOrEqual(Date(), early.date)
            order.withLock { $0.append(1) }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(order.withLock { $0 }, [1, 2])
    }

    func testRepeatingRunsOnTheQueueAndStopsAfterCancel() {
        let queue = makeQueue()
        let count = LockedBox(0)
        let threeRuns = expectation(description: "three runs")
        threeRuns.assertForOverFulfill = false
        let cancellable = queue.schedule(after: queue.now, interval: .milliseconds(5)) {
            XCTAssertTrue(OperationQueue.current === queue)
            if count.update({ $0 + 1 }) == 3 { threeRuns.fulfill() }
        }
        wait(for: [threeRuns], timeout: 30)
        cancellable.cancel()
        cancellable.cancel()
        queue.waitUntilAllOperationsAreFinished()
        let settled = count.withLock { $0 }
        let later = expectation(description: "later")
        queue.schedule(after: queue.now.advanced(by: .milliseconds(50))) { later.fulfill() }
        wait(for: [later], timeout: 30)
        XCTAssertEqual(count.withLock { $0 }, settled, "no run after cancel() returned")
    }

    func testStrideIsSeconds() throws {
        XCTAssertEqual((2 as Stride).magnitude, 2)
        XCTAssertEqual((0.5 as Stride).timeInterval, 0.5)
        XCTAssertEqual(Stride.seconds(3).magnitude, 3)
        XCTAssertEqual(Stride.seconds(0.25).magnitude, 0.25)
        XCTAssertEqual(Stride.milliseconds(5).magnitude, 0.005, accuracy: 1e-15)
        XCTAssertEqual(Stride.microseconds(5).magnitude, 0.000_005, accuracy: 1e-18)
        XCTAssertEqual(Stride.nanoseconds(5).magnitude, 0.000_000_005, accuracy: 1e-21)
        XCTAssertEqual(Stride(exactly: 4 as Int8)?.magnitude, 4)
        XCTAssertEqual(Stride(1.5) * 2, 3)
        XCTAssertEqual(Stride(1.5) + 2, 3.5)
        XCTAssertEqual(Stride(1.5) - 2, -0.5)
        XCTAssertEqual(-Stride(1.5), -1.5)
        var stride: Stride = 1
        stride += 1
        stride *= 3
        stride -= 0.5
        XCTAssertEqual(stride, 5.5)
        XCTAssertLessThan(Stride.milliseconds(999), .seconds(1))
        let data = try JSONEncoder().encode(Stride(-2.5))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"magnitude":-2.5}"#)
        XCTAssertEqual(try JSONDecoder().decode(Stride.self, from: data), -2.5)
    }

    // cx-org/CombineX 973cc9b: OperationQueue's distance(to:) had its sign reversed.
    func testTimeIsADate() throws {
        let a = Time(Date(timeIntervalSinceReferenceDate: 1000))
        let b = a.advanced(by: .milliseconds(250))
        XCTAssertEqual(b.date, Date(timeIntervalSinceReferenceDate: 1000.25))
        XCTAssertEqual(a.distance(to: b), 0.25)
        XCTAssertEqual(b.distance(to: a), -0.25)
        XCTAssertLessThan(a, b)
        XCTAssertEqual(try JSONDecoder().decode(Time.self, from: JSONEncoder().encode(b)), b)
        XCTAssertEqual(OperationQueue.main.minimumTolerance, 0)
    }
}

/// Records the operations added to it (Combine's scheduler adds exactly one per action).
private final class RecordingOperationQueue: OperationQueue, @unchecked Sendable {
    let added = LockedBox<[Operation]>([])

    override func addOperation(_ op: Operation) {
        added.withLock { $0.append(op) }
        super.addOperation(op)
    }
}

extension OperationQueueSchedulerTests {
    func testAnImmediateActionIsOneBlockOperation() {
        let queue = RecordingOperationQueue()
        let ran = expectation(description: "ran")
        queue.schedule { ran.fulfill() }
        wait(for: [ran], timeout: 30)
        XCTAssertEqual(queue.added.withLock { $0.count }, 1)
        XCTAssertTrue(queue.added.withLock { $0.first } is BlockOperation)
    }

    func testADelayedActionIsAddedAtOnceAndIsNotReadyUntilDueThenRunsOnce() throws {
        let queue = RecordingOperationQueue()
        let count = LockedBox(0)
        let ran = expectation(description: "ran")
        queue.schedule(after: queue.now.advanced(by: .init(0.3))) {
            count.withLock { $0 += 1 }
            ran.fulfill()
        }
        let operation = try XCTUnwrap(queue.added.withLock { $0.first })
        XCTAssertEqual(queue.added.withLock { $0.count }, 1, "added when scheduled, not when due")
        XCTAssertFalse(operation is BlockOperation)
        XCTAssertTrue(operation is Cancellable)
        XCTAssertFalse(operation.isReady)
        wait(for: [ran], timeout: 30)
        queue.waitUntilAllOperationsAreFinished()
        operation.main()
        XCTAssertEqual(count.withLock { $0 }, 1, "the action runs once however often main() is called")
    }

    func testRepeatingAddsTheNextOperationBeforeEachRunAndReturnsAnAnyCancellable() {
        let queue = RecordingOperationQueue()
        let ticks = expectation(description: "3 ticks")
        ticks.expectedFulfillmentCount = 3
        let count = LockedBox(0)
        let cancellable = queue.schedule(after: queue.now, interval: .init(0.05)) {
            if count.withLock({
                $0 += 1; return $0
            }) <= 3 {
                ticks.fulfill()
            }
        }
        XCTAssertTrue(cancellable is AnyCancellable)
        wait(for: [ticks], timeout: 30)
        cancellable.cancel()
        let added = queue.added.withLock { $0.count }
        XCTAssertGreaterThanOrEqual(added, count.withLock { $0 } + 1, "one pending operation beyond the runs so far")
        let settled = expectation(description: "settled")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { settled.fulfill() }
        wait(for: [settled], timeout: 30)
        XCTAssertEqual(queue.added.withLock { $0.count }, added, "nothing is added after cancel")
    }
}
