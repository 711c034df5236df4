import XCTest

@testable import UntangleSync

/// `ThreadLocalWord`: one value per thread, 0 until the thread sets it.
final class ThreadLocalWordTests: XCTestCase {
    static let word = ThreadLocalWord()

    func testEachThreadSeesZeroUntilItSetsItsOwnValue() {
        let word = Self.word
        XCTAssertEqual(word.value, 0)
        word.value = 41
        XCTAssertEqual(word.value, 41)
        let other = LockedBox<[Int]>([])
        runConcurrently(threads: 1) { _ in
            other.withLock { $0.append(word.value) }
            word.value = -3
            other.withLock { $0.append(word.value) }
        }
        XCTAssertEqual(other.withLock { $0 }, [0, -3], "a new thread starts at 0 and keeps its own value")
        XCTAssertEqual(word.value, 41, "this thread's value is untouched")
        word.value = 0
    }
}
