import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class DebouncerTests: XCTestCase {
    func testTrailingRunsTheLastActionOfABurstAfterTheQuietPeriod() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .seconds(1), scheduler: scheduler)
        var ran: [String] = []
        debouncer.call { ran.append("a") }
        scheduler.advance(by: .milliseconds(500))
        debouncer.call { ran.append("b") }
        scheduler.advance(by: .milliseconds(900))
        XCTAssertEqual(ran, [], "the second call restarted the quiet period")
        scheduler.advance(by: .milliseconds(100))
        XCTAssertEqual(ran, ["b"])
        debouncer.call { ran.append("c") }
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(ran, ["b", "c"])
    }

    func testLeadingRunsTheFirstAtOnceAndDropsTheRest() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .seconds(1), scheduler: scheduler, edges: .leading)
        var ran: [String] = []
        debouncer.call { ran.append("a") }
        scheduler.advance()
        XCTAssertEqual(ran, ["a"])
        debouncer.call { ran.append("b") }
        scheduler.advance(by: .milliseconds(999))
        debouncer.call { ran.append("c") }
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(ran, ["a"], "calls within the burst are dropped")
        debouncer.call { ran.append("d") }
        scheduler.advance()
        XCTAssertEqual(ran, ["a", "d"], "a new burst after the quiet period")
    }

    func testLeadingAndTrailing() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .seconds(1), scheduler: scheduler, edges: [.leading, .trailing])
        var ran: [String] = []
        debouncer.call { ran.append("single") }
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(ran, ["single"], "a burst of one call runs once")
        debouncer.call { ran.append("first") }
        debouncer.call { ran.append("middle") }
        debouncer.call { ran.append("last") }
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(ran, ["single", "first", "last"])
    }

    func testCancelDropsThePendingActionAndReleasesIt() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .seconds(1), scheduler: scheduler)
        weak var weakWitness: Token?
        var ran = 0
        do {
            let witness = Token()
            weakWitness = witness
            debouncer.call { withExtendedLifetime(witness) { ran += 1 } }
        }
        debouncer.cancel()
        XCTAssertNil(weakWitness, "cancel releases the pending action")
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(ran, 0)
        debouncer.call { ran += 10 }
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(ran, 10, "still usable after cancel")
    }

    func testDeinitDropsThePendingAction() {
        let scheduler = TestScheduler()
        var ran = 0
        var debouncer: Debouncer<TestScheduler>? = Debouncer(dueTime: .seconds(1), scheduler: scheduler)
        debouncer?.call { ran += 1 }
        debouncer = nil
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(ran, 0)
    }

    func testActionMayCallTheDebouncerAgain() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .seconds(1), scheduler: scheduler)
        var ran = 0
        func again() {
            ran += 1
            if ran < 3 { debouncer.call(again) }
        }
        debouncer.call(again)
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(ran, 3, "no lock is held while the action runs")
    }
}

final class DebouncerConcurrencyTests: XCTestCase {
    func testCallsFromManyThreadsRunExactlyOneTrailingActionPerBurst() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .seconds(1), scheduler: scheduler)
        let detector = OverlapDetector()
        let count = Counter()
        runConcurrently(threads: 4) { thread in
            for _ in 0..<500 {
                debouncer.call { detector.around { count.add(1) } }
            }
        }
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(count.value, 1)
        XCTAssertEqual(detector.overlaps, 0)
    }

    func testCallsWhileTheSchedulerAdvancesOnAnotherThread() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .milliseconds(10), scheduler: scheduler, edges: [.leading, .trailing])
        let detector = OverlapDetector()
        let count = Counter()
        runConcurrently(threads: 3) { thread in
            for _ in 0..<1_000 {
                if thread == 0 {
                    scheduler.advance(by: .milliseconds(3))
                } else {
                    debouncer.call { detector.around { count.add(1) } }
                }
            }
        }
        scheduler.advance(by: .seconds(1))
        XCTAssertGreaterThan(count.value, 0)
        XCTAssertLessThanOrEqual(count.value, 2_000)
        XCTAssertEqual(detector.overlaps, 0, "TestScheduler runs one action at a time")
    }

    func testLockInversionActionTakesAUserLockHeldByACallingThread() {
        let scheduler = TestScheduler()
        let debouncer = Debouncer(dueTime: .milliseconds(1), scheduler: scheduler)
        let userLock = NSRecursiveLock()
        let count = Counter()
        runConcurrently(threads: 2, timeout: 60) { thread in
            for _ in 0..<1_000 {
                if thread == 0 {
                    userLock.lock()
                    debouncer.call {
                        userLock.lock()
                        count.add(1)
                        userLock.unlock()
                    }
                    userLock.unlock()
                } else {
                    scheduler.advance(by: .milliseconds(1))
                }
            }
        }
        scheduler.advance(by: .seconds(1))
        XCTAssertGreaterThan(count.value, 0)
    }
}
