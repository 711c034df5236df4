import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

final class CancellableBuilderTests: XCTestCase {
    func testCancelBagInitializerAndInsertCollectEveryStatementIncludingControlFlow() {
        let cancelled = LockedBox<[String]>([])
        func item(_ name: String) -> AnyCancellable {
            AnyCancellable { cancelled.withLock { $0.append(name) } }
        }
        let flag = true
        let bag = CancelBag {
            item("a")
            item("b")
        }
        bag.insert {
            if flag { item("if") }
            if !flag { item("never") } else { item("else") }
            for index in 0..<2 { item("for\(index)") }
            [item("array")]
        }
        XCTAssertEqual(bag.count, 7)
        XCTAssertEqual(cancelled.withLock { $0 }, [])
        bag.cancel()
        XCTAssertEqual(cancelled.withLock { $0 }, ["a", "b", "if", "else", "for0", "for1", "array"])
    }

    func testNonAnyCancellableItemsAreWrapped() {
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox<[Int]>([])
        let serial = SerialCancellable()
        let bag = CancelBag {
            subject.sink { value in received.withLock { $0.append(value) } }
            serial
        }
        subject.send(1)
        bag.cancel()
        subject.send(2)
        XCTAssertEqual(received.withLock { $0 }, [1])
        XCTAssertTrue(serial.isCancelled)
    }

    func testInsertIntoACancelledBagCancelsEveryBuiltItemAtOnce() {
        let count = LockedBox(0)
        let bag = CancelBag()
        bag.cancel()
        bag.insert {
            AnyCancellable { count.withLock { $0 += 1 } }
            AnyCancellable { count.withLock { $0 += 1 } }
        }
        XCTAssertEqual(count.withLock { $0 }, 2)
        XCTAssertEqual(bag.count, 0)
    }
}
