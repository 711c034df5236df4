import Foundation
import UntangleSync
import XCTest

final class LockConcurrencyTests: XCTestCase {
    func testWithLockGivesExactCountsUnderContention() {
        let lock = Lock()
        final class Counter: @unchecked Sendable { var value = 0 }
        let counter = Counter()
        runConcurrently(threads: 8) { _ in
            for _ in 0..<20_000 {
                lock.withLock { counter.value += 1 }
            }
        }
        XCTAssertEqual(lock.withLock { counter.value }, 160_000)
    }

    func testLockGivesMutualExclusion() {
        let lock = Lock()
        let inside = LockedBox((now: 0, maximum: 0))
        runConcurrently(threads: 8) { _ in
            for _ in 0..<2_000 {
                lock.lock()
                inside.withLock {
                    $0.now += 1; $0.maximum = max($0.maximum, $0.now)
                }
                inside.withLock { $0.now -= 1 }
                lock.unlock()
            }
        }
        XCTAssertEqual(inside.withLock { $0.maximum }, 1, "two threads were inside the lock at once")
    }

    func testLockedBoxReadModifyWriteIsExactUnderContention() {
        let box = LockedBox(0)
        runConcurrently(threads: 8) { _ in
            for _ in 0..<20_000 {
                box.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(box.withLock { $0 }, 160_000)
    }

    func testLockedBoxUpdateReturnsTheNewValueAndCopiesShareState() {
        let box = LockedBox([1, 2])
        let copy = box
        XCTAssertEqual(copy.update { $0 + [3] }, [1, 2, 3])
        XCTAssertEqual(box.withLock { $0 }, [1, 2, 3])
    }

    func testUserLocksAreNotCountedAsLibraryLocks() {
        let lock = Lock()
        lock.withLock {
            XCTAssertEqual(CalloutCheck.heldByCurrentThread, 0)
        }
        lock.withCriticalSection {
            #if DEBUG
                XCTAssertEqual(CalloutCheck.heldByCurrentThread, 1)
            #endif
        }
        XCTAssertEqual(CalloutCheck.heldByCurrentThread, 0)
    }
}
