import XCTest

@testable import UntangleSync

final class ThreadStripeConcurrencyTests: XCTestCase {
    func testAThreadKeepsItsNumberAndThreadsGetDifferentOnes() {
        let mine = ThreadStripe.current
        XCTAssertEqual(ThreadStripe.current, mine, "a thread keeps its number")
        let numbers = LockedBox<[Int]>([])
        runConcurrently(threads: 8) { _ in
            let first = ThreadStripe.current
            XCTAssertEqual(ThreadStripe.current, first)
            numbers.withLock { $0.append(first) }
        }
        let seen = numbers.withLock { $0 }
        XCTAssertEqual(seen.count, 8)
        XCTAssertEqual(Set(seen).count, 8, "eight new threads get eight different numbers: \(seen)")
        XCTAssertFalse(seen.contains(mine))
    }
}
