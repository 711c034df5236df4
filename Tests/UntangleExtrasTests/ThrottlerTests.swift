import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class ThrottlerTests: XCTestCase {
    func testLeadingAndTrailingRunsFirstAtOnceAndLatestAtTheWindowEnd() {
        let scheduler = TestScheduler()
        let throttler = Throttler(interval: .seconds(1), scheduler: scheduler)
        var ran: [String] = []
        throttler.call { ran.append("a") }
        scheduler.advance()
        XCTAssertEqual(ran, ["a"])
        throttler.call { ran.append("b") }
        throttler.call { ran.append("c") }
        scheduler.advance(by: .milliseconds(999))
        XCTAssertEqual(ran, ["a"])
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(ran, ["a", "c"])
        throttler.call { ran.append("d") }
        scheduler.advance(by: .milliseconds(500))
        XCTAssertEqual(ran, ["a", "c"], "the trailing action opened a new window")
        scheduler.advance(by: .milliseconds(500))
        XCTAssertEqual(ran, ["a", "c", "d"])
        scheduler.advance(by: .seconds(5))
        throttler.call { ran.append("e") }
        scheduler.advance()
        XCTAssertEqual(ran, ["a", "c", "d", "e"], "after a quiet window the next call leads again")
    }

    func testLeadingOnlyDropsCallsDuringTheWindow() {
        let scheduler = TestScheduler()
        let throttler = Throttler(interval: .seconds(1), scheduler: scheduler, edges: .leading)
        var ran: [Int] = []
        for i in 0..<5 {
            throttler.call { ran.append(i) }
            scheduler.advance(by: .milliseconds(300))
        }
        XCTAssertEqual(ran, [0, 4])
    }

    func testTrailingOnlyWithFirstInsteadOfLatest() {
        let scheduler = TestScheduler()
        let throttler = Throttler(interval: .seconds(1), scheduler: scheduler, edges: .trailing, latest: false)
        var ran: [Int] = []
        throttler.call { ran.append(1) }
        throttler.call { ran.append(2) }
        scheduler.advance(by: .milliseconds(999))
        XCTAssertEqual(ran, [])
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(ran, [1])
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(ran, [1])
    }

    func testCancelDropsThePendingActionAndClosesTheWindow() {
        let scheduler = TestScheduler()
        let throttler = Throttler(interval: .seconds(1), scheduler: scheduler)
        var ran: [Int] = []
        throttler.call { ran.append(1) }
        throttler.call { ran.append(2) }
        throttler.cancel()
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(ran, [1], "the leading action was already scheduled; the trailing one was dropped")
        throttler.call { ran.append(3) }
        scheduler.advance()
        XCTAssertEqual(ran, [1, 3])
    }
}

final class ThrottlerConcurrencyTests: XCTestCase {
    func testCallsFromManyThreadsRunAtMostTwoActionsPerWindow() {
        let scheduler = TestScheduler()
        let throttler = Throttler(interval: .seconds(1), scheduler: scheduler)
        let detector = OverlapDetector()
        let count = Counter()
        runConcurrently(threads: 4) { _ in
            for _ in 0..<500 {
                throttler.call { detector.around { count.add(1) } }
            }
        }
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(count.value, 2, "one leading, one trailing")
        XCTAssertEqual(detector.overlaps, 0)
    }

    func testLockInversionActionTakesAUserLockHeldByACallingThread() {
        let scheduler = TestScheduler()
        let throttler = Throttler(interval: .milliseconds(2), scheduler: scheduler)
        let userLock = NSRecursiveLock()
        let count = Counter()
        runConcurrently(threads: 2, timeout: 60) { thread in
            for _ in 0..<1_000 {
                if thread == 0 {
                    userLock.lock()
                    throttler.call {
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
