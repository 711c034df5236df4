import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class SerialCancellableTests: XCTestCase {
    func testAssigningANewItemCancelsThePreviousOneOnly() {
        let log = LockedBox<[String]>([])
        let serial = SerialCancellable()
        serial.cancellable = AnyCancellable { log.withLock { $0.append("first") } }
        XCTAssertEqual(log.withLock { $0 }, [])
        serial.cancellable = AnyCancellable { log.withLock { $0.append("second") } }
        XCTAssertEqual(log.withLock { $0 }, ["first"])
        serial.cancellable = nil
        XCTAssertEqual(log.withLock { $0 }, ["first", "second"])
        XCTAssertNil(serial.cancellable)
    }

    func testCancelCancelsTheCurrentItemAndEveryLaterOneAtOnce() {
        let log = LockedBox<[String]>([])
        let serial = SerialCancellable(AnyCancellable { log.withLock { $0.append("current") } })
        serial.cancel()
        serial.cancel()
        XCTAssertTrue(serial.isCancelled)
        serial.replace(with: AnyCancellable { log.withLock { $0.append("late") } })
        XCTAssertEqual(log.withLock { $0 }, ["current", "late"])
        XCTAssertNil(serial.cancellable)
    }

    func testDeinitCancelsTheCurrentItem() {
        let count = LockedBox(0)
        do {
            let serial = SerialCancellable()
            serial.cancellable = AnyCancellable { count.withLock { $0 += 1 } }
        }
        XCTAssertEqual(count.withLock { $0 }, 1)
    }

    func testAReplacedItemsCancellationMayUseTheSerialAgain() {
        let serial = SerialCancellable()
        let count = LockedBox(0)
        serial.cancellable = AnyCancellable {
            count.withLock { $0 += 1 }
            _ = serial.cancellable  // re-entering the serial from a cancellation must not deadlock
        }
        withWatchdog("reentrant replace") {
            serial.cancellable = nil
        }
        XCTAssertEqual(count.withLock { $0 }, 1)
    }
}

final class SerialCancellableConcurrencyTests: XCTestCase {
    /// 8 threads replace the item concurrently while one cancels: every item is cancelled exactly once in the end.
    func testConcurrentReplacementsCancelEveryItemExactlyOnce() {
        let serial = SerialCancellable()
        let counts = LockedBox([Int](repeating: 0, count: 8 * 500))
        runConcurrently(threads: 8) { thread in
            for i in 0..<500 {
                let index = thread * 500 + i
                serial.cancellable = AnyCancellable { counts.withLock { $0[index] += 1 } }
            }
        }
        serial.cancel()
        XCTAssertEqual(counts.withLock { $0 }, [Int](repeating: 1, count: 8 * 500))
    }

    func testReplacementsRacingCancelLeaveNothingRunning() {
        for _ in 0..<50 {
            let serial = SerialCancellable()
            let live = LockedBox(0)
            runConcurrently(threads: 4) { thread in
                if thread == 0 {
                    serial.cancel()
                } else {
                    for _ in 0..<50 {
                        live.withLock { $0 += 1 }
                        serial.cancellable = AnyCancellable { live.withLock { $0 -= 1 } }
                    }
                }
            }
            XCTAssertEqual(live.withLock { $0 }, 0, "an item assigned around cancel() was never cancelled")
        }
    }
}
