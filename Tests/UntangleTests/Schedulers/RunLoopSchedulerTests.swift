import Foundation
import Untangle
import UntangleSync
import XCTest

final class RunLoopSchedulerTests: XCTestCase {
    typealias Stride = RunLoop.SchedulerTimeType.Stride
    typealias Time = RunLoop.SchedulerTimeType

    func testScheduleRunsOnTheDedicatedRunLoop() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let ran = expectation(description: "ran")
        let thread = loop.thread!
        loop.runLoop.schedule {
            XCTAssertTrue(Thread.current === thread)
            ran.fulfill()
        }
        wait(for: [ran], timeout: 30)
    }

    func testScheduleWakesARunLoopSleepingUntilItsNextTimer() {
        // Regression: swift-corelibs-foundation's `RunLoop.perform` does not wake the loop, so without an explicit
        // wake-up the action waited for the loop's next timer (here an hour away) and the watchdog expired.
        let loop = DedicatedRunLoop(slice: 3600)
        defer { loop.stop(waitForExit: false) }
        let ran = expectation(description: "ran")
        loop.runLoop.schedule { ran.fulfill() }
        wait(for: [ran], timeout: 30)
    }

    func testAfterRunsNotBeforeTheDateAndInDateOrder() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let runLoop = loop.runLoop!
        let thread = loop.thread!
        let order = LockedBox<[Int]>([])
        let done = expectation(description: "both ran")
        done.expectedFulfillmentCount = 2
        let early = runLoop.now.advanced(by: .milliseconds(20))
        let late = runLoop.now.advanced(by: .milliseconds(60))
        runLoop.schedule(after: late, tolerance: .zero) {
            XCTAssertGreaterThanOrEqual(Date(), late.date)
            XCTAssertTrue(Thread.current === thread)
            order.withLock { $0.append(2) }
            done.fulfill()
        }
        runLoop.schedule(after: early) {
            XCTAssertGreaterThanOrEqual(Date(), early.date)
            order.withLock { $0.append(1) }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(order.withLock { $0 }, [1, 2])
    }

    func testRepeatingRunsOnTheRunLoopAndStopsAfterCancel() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let runLoop = loop.runLoop!
        let thread = loop.thread!
        let count = LockedBox(0)
        let threeRuns = expectation(description: "three runs")
        threeRuns.assertForOverFulfill = false
        let cancellable = runLoop.schedule(after: runLoop.now, interval: .milliseconds(5)) {
            XCTAssertTrue(Thread.current === thread)
            if count.update({ $0 + 1 }) == 3 { threeRuns.fulfill() }
        }
        wait(for: [threeRuns], timeout: 30)
        // Cancel from the run loop's own thread (no run can be in progress there) and from this one.
        let cancelled = expectation(description: "cancelled on the run loop")
        let settled = LockedBox(0)
        runLoop.schedule {
            cancellable.cancel()
            settled.withLock { $0 = count.withLock { $0 } }
            cancelled.fulfill()
        }
        wait(for: [cancelled], timeout: 30)
        cancellable.cancel()
        let later = expectation(description: "later")
        runLoop.schedule(after: runLoop.now.advanced(by: .milliseconds(50))) { later.fulfill() }
        wait(for: [later], timeout: 30)
        XCTAssertEqual(count.withLock { $0 }, settled.withLock { $0 }, "no run after cancel() returned")
    }

    // cx-org/CombineX 973cc9b: RunLoop's distance(to:) had its sign reversed.
    func testStrideIsSecondsAndTimeIsADate() throws {
        XCTAssertEqual((2 as Stride).magnitude, 2)
        XCTAssertEqual(Stride.milliseconds(250).timeInterval, 0.25)
        XCTAssertEqual(Stride.seconds(2) * 1.5, 3)
        XCTAssertEqual(Stride(exactly: 9 as UInt)?.magnitude, 9)
        let a = Time(Date(timeIntervalSinceReferenceDate: 1024.5))
        XCTAssertEqual(a.advanced(by: 0.25).date, Date(timeIntervalSinceReferenceDate: 1024.75))
        XCTAssertEqual(a.distance(to: a.advanced(by: -1)), -1)
        let data = try JSONEncoder().encode(a)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"date":1024.5}"#)
        XCTAssertEqual(try JSONDecoder().decode(Time.self, from: data), a)
        XCTAssertEqual(RunLoop.main.minimumTolerance, 0)
    }
}
