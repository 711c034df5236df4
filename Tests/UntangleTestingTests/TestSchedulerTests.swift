import Dispatch
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class TestSchedulerTests: XCTestCase {
    func testNothingRunsUntilTheClockAdvances() {
        let scheduler = TestScheduler()
        var runs = 0
        scheduler.schedule { runs += 1 }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { runs += 1 }
        XCTAssertEqual(runs, 0)
        XCTAssertEqual(scheduler.scheduledActionCount, 2)
        scheduler.advance()
        XCTAssertEqual(runs, 1)
        scheduler.advance(by: .milliseconds(999))
        XCTAssertEqual(runs, 1)
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(runs, 2)
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }

    func testEqualTimesRunInFIFOOrder() {
        let scheduler = TestScheduler()
        var order: [Int] = []
        let date = scheduler.now.advanced(by: .seconds(1))
        for i in 0..<20 {
            scheduler.schedule(after: date) { order.append(i) }
        }
        scheduler.schedule(after: scheduler.now.advanced(by: .milliseconds(500))) { order.append(-1) }
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(order, [-1] + Array(0..<20))
    }

    func testNowIsTheActionsDueDateWhileItRuns() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        var seen: [DispatchQueue.SchedulerTimeType] = []
        scheduler.schedule(after: start.advanced(by: .seconds(2))) { seen.append(scheduler.now) }
        scheduler.schedule(after: start.advanced(by: .seconds(1))) { seen.append(scheduler.now) }
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(seen, [start.advanced(by: .seconds(1)), start.advanced(by: .seconds(2))])
        XCTAssertEqual(scheduler.now, start.advanced(by: .seconds(5)))
    }

    func testActionsScheduledFromActionsRunWhenDueDuringTheSameAdvance() {
        let scheduler = TestScheduler()
        var order: [String] = []
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) {
            order.append("outer")
            scheduler.schedule { order.append("nested now") }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { order.append("nested +1s") }
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(10))) { order.append("nested +10s") }
        }
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(order, ["outer", "nested now", "nested +1s"])
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(order, ["outer", "nested now", "nested +1s", "nested +10s"])
    }

    func testAdvanceFromInsideAnActionExtendsTheRunningAdvance() {
        let scheduler = TestScheduler()
        var order: [Int] = []
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(5))) { order.append(5) }
        scheduler.schedule {
            order.append(0)
            scheduler.advance(by: .seconds(5))
            XCTAssertEqual(order, [0], "the nested advance returns at once; the outer one runs the rest")
        }
        scheduler.advance()
        XCTAssertEqual(order, [0, 5])
    }

    func testAdvanceToAndNeverBackwards() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        var runs = 0
        scheduler.schedule(after: start.advanced(by: .seconds(3))) { runs += 1 }
        scheduler.advance(to: start.advanced(by: .seconds(2)))
        XCTAssertEqual(runs, 0)
        XCTAssertEqual(scheduler.now, start.advanced(by: .seconds(2)))
        scheduler.advance(to: start)
        XCTAssertEqual(scheduler.now, start.advanced(by: .seconds(2)), "the clock never goes backwards")
        scheduler.advance(by: .seconds(-10))
        XCTAssertEqual(scheduler.now, start.advanced(by: .seconds(2)))
        scheduler.advance(to: start.advanced(by: .seconds(3)))
        XCTAssertEqual(runs, 1)
    }

    func testPastDatesRunAtTheCurrentInstant() {
        let scheduler = TestScheduler()
        scheduler.advance(by: .seconds(10))
        var runs = 0
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(-5))) { runs += 1 }
        scheduler.advance()
        XCTAssertEqual(runs, 1)
    }

    func testRunRunsEverythingAndMovesTheClockToTheLastDate() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        var order: [Int] = []
        scheduler.schedule(after: start.advanced(by: .seconds(30))) { order.append(30) }
        scheduler.schedule(after: start.advanced(by: .seconds(10))) {
            order.append(10)
            scheduler.schedule(after: scheduler.now.advanced(by: .seconds(100))) { order.append(110) }
        }
        scheduler.run()
        XCTAssertEqual(order, [10, 30, 110])
        XCTAssertEqual(scheduler.now, start.advanced(by: .seconds(110)))
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }

    func testRunStopsRepeatingActionsAtTheLimit() {
        let scheduler = TestScheduler()
        var runs = 0
        let cancellable = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { runs += 1 }
        scheduler.run(limit: 25)
        XCTAssertEqual(runs, 25)
        XCTAssertEqual(scheduler.scheduledActionCount, 1)
        cancellable.cancel()
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }

    func testRepeatingActionsRunEveryIntervalUntilCancelled() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        var times: [DispatchQueue.SchedulerTimeType] = []
        let cancellable = scheduler.schedule(after: start.advanced(by: .seconds(1)), interval: .seconds(2)) {
            times.append(scheduler.now)
        }
        scheduler.advance(by: .seconds(6))
        XCTAssertEqual(times, [1, 3, 5].map { start.advanced(by: .seconds($0)) })
        cancellable.cancel()
        cancellable.cancel()
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(times.count, 3)
    }

    func testCancellingFromInsideTheRepeatingActionStopsIt() {
        let scheduler = TestScheduler()
        var runs = 0
        var cancellable: Cancellable?
        cancellable = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {
            runs += 1
            if runs == 2 { cancellable?.cancel() }
        }
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(runs, 2)
        _ = cancellable
    }

    func testDroppingTheRepeatingCancellableCancels() {
        let scheduler = TestScheduler()
        var runs = 0
        _ = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { runs += 1 }
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(runs, 0)
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }

    func testUsableWhereADispatchQueueSchedulerIsExpected() {
        func delayed(on scheduler: some Scheduler<DispatchQueue.SchedulerTimeType>, _ body: @escaping () -> Void) {
            scheduler.schedule(after: scheduler.now.advanced(by: 0.5), body)
        }
        let scheduler = TestScheduler()
        var ran = false
        delayed(on: scheduler) { ran = true }
        scheduler.advance(by: .milliseconds(499))
        XCTAssertFalse(ran)
        scheduler.advance(by: .milliseconds(1))
        XCTAssertTrue(ran)
    }
}

final class TestSchedulerConcurrencyTests: XCTestCase {
    func testSchedulingFromEightThreadsRunsEveryActionOnceAndNeverConcurrently() {
        let scheduler = TestScheduler()
        let start = scheduler.now
        let ran = LockedBox<[Int: Int]>([:])
        let running = LockedBox(0)
        let overlaps = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<100 {
                let id = thread * 1000 + i
                scheduler.schedule(after: start.advanced(by: .milliseconds(i))) {
                    if running.update({ $0 + 1 }) > 1 { overlaps.withLock { $0 += 1 } }
                    ran.withLock { $0[id, default: 0] += 1 }
                    running.withLock { $0 -= 1 }
                }
                if i.isMultiple(of: 10) { scheduler.advance(by: .milliseconds(1)) }
            }
        }
        // Some advances may have handed their target to another thread's drain that already finished: a final
        // advance from here runs whatever is left.
        scheduler.advance(to: start.advanced(by: .seconds(1)))
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
        let counts = ran.withLock { $0 }
        XCTAssertEqual(counts.count, 800)
        XCTAssertTrue(counts.values.allSatisfy { $0 == 1 })
        XCTAssertEqual(overlaps.withLock { $0 }, 0)
    }

    func testConcurrentCancelAndAdvance() {
        let scheduler = TestScheduler()
        let runs = LockedBox(0)
        let cancellable = scheduler.schedule(after: scheduler.now, interval: .milliseconds(1)) {
            runs.withLock { $0 += 1 }
        }
        nonisolated(unsafe) let shared = cancellable
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            if thread.isMultiple(of: 2) {
                for _ in 0..<50 { scheduler.advance(by: .milliseconds(1)) }
            } else {
                shared.cancel()
            }
        }
        let settled = runs.withLock { $0 }
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(runs.withLock { $0 }, settled, "no run after every cancel() returned")
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }
}
