import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class CompositeCancellableTests: XCTestCase {
    func testRemoveCancelsOneItemAndCancelTheRestInInsertionOrder() {
        let log = LockedBox<[String]>([])
        let group = CompositeCancellable()
        let a = group.insert(AnyCancellable { log.withLock { $0.append("a") } })
        group.insert(AnyCancellable { log.withLock { $0.append("b") } })
        group.insert(AnyCancellable { log.withLock { $0.append("c") } })
        XCTAssertEqual(group.count, 3)
        group.remove(for: a!)
        group.remove(for: a!)
        XCTAssertEqual(log.withLock { $0 }, ["a"])
        XCTAssertEqual(group.count, 2)
        group.cancel()
        group.cancel()
        XCTAssertEqual(log.withLock { $0 }, ["a", "b", "c"])
        XCTAssertTrue(group.isCancelled)
        XCTAssertEqual(group.count, 0)
    }

    func testInsertAfterCancelReturnsNilAndCancelsAtOnce() {
        let count = LockedBox(0)
        let group = CompositeCancellable()
        group.cancel()
        XCTAssertNil(group.insert(AnyCancellable { count.withLock { $0 += 1 } }))
        XCTAssertEqual(count.withLock { $0 }, 1)
    }

    func testBuilderInitializerAndDeinit() {
        let count = LockedBox(0)
        do {
            let group = CompositeCancellable {
                AnyCancellable { count.withLock { $0 += 1 } }
                AnyCancellable { count.withLock { $0 += 1 } }
            }
            XCTAssertEqual(group.count, 2)
        }
        XCTAssertEqual(count.withLock { $0 }, 2)
    }

    func testAnItemsCancellationMayUseTheGroup() {
        let group = CompositeCancellable()
        group.insert(AnyCancellable { group.insert(AnyCancellable {}) })
        withWatchdog("reentrant cancel") { group.cancel() }
        XCTAssertEqual(group.count, 0)
    }
}

final class CompositeCancellableConcurrencyTests: XCTestCase {
    func testConcurrentInsertRemoveAndCancelCancelEachItemExactlyOnce() {
        let group = CompositeCancellable()
        let counts = LockedBox([Int](repeating: 0, count: 8 * 300))
        runConcurrently(threads: 8) { thread in
            for i in 0..<300 {
                let index = thread * 300 + i
                let key = group.insert(AnyCancellable { counts.withLock { $0[index] += 1 } })
                if i % 3 == 0, let key { group.remove(for: key) }
                if thread == 7, i == 150 { group.cancel() }
            }
        }
        group.cancel()
        XCTAssertEqual(counts.withLock { $0 }, [Int](repeating: 1, count: 8 * 300))
    }
}
