import XCTest

@testable import UntangleSync

final class AtomicWordTests: XCTestCase {
    final class Holder: @unchecked Sendable {
        let word = AtomicWord(0)
    }

    func testOperationsReturnTheDocumentedValues() {
        let holder = Holder()
        XCTAssertEqual(holder.word.load(), 0)
        XCTAssertTrue(holder.word.compareExchange(expected: 0, desired: 5))
        XCTAssertFalse(holder.word.compareExchange(expected: 0, desired: 6), "the word is 5, not 0")
        XCTAssertEqual(holder.word.load(), 5)
        XCTAssertEqual(holder.word.exchange(9), 5)
        XCTAssertEqual(holder.word.load(), 9)
    }
}

final class AtomicWordConcurrencyTests: XCTestCase {
    func testCompareExchangeLoopsFromEightThreadsLoseNoIncrement() {
        let holder = AtomicWordTests.Holder()
        runConcurrently(threads: 8) { _ in
            for _ in 0..<10_000 {
                while true {
                    let old = holder.word.load()
                    if holder.word.compareExchange(expected: old, desired: old + 1) { break }
                }
            }
        }
        XCTAssertEqual(holder.word.load(), 80_000)
    }

    func testExactlyOneOfEightExchangesTakesTheValue() {
        for _ in 0..<200 {
            let holder = AtomicWordTests.Holder()
            XCTAssertTrue(holder.word.compareExchange(expected: 0, desired: 42))
            let winners = LockedBox(0)
            runConcurrently(threads: 8) { _ in
                if holder.word.exchange(0) == 42 { winners.withLock { $0 += 1 } }
            }
            XCTAssertEqual(winners.withLock { $0 }, 1)
        }
    }
}

final class LockedBoxWithWordTests: XCTestCase {
    func testCriticalSectionSeesAndChangesTheValueAndTheWord() {
        let box = LockedBoxWithWord(tracking: [1, 2])
        let (count, word) = box.withCriticalSection { value, word -> (Int, Int) in
            value.append(3)
            word.store(7)
            return (value.count, word.load())
        }
        XCTAssertEqual(count, 3)
        XCTAssertEqual(word, 7)
        if LockedBoxWithWord<[Int]>.hasLockFreeWord {
            XCTAssertEqual(box.loadWord(), 7)
            XCTAssertTrue(box.compareExchangeWord(expected: 7, desired: 8))
            XCTAssertFalse(box.compareExchangeWord(expected: 7, desired: 9))
            XCTAssertEqual(box.withUnlockedValue { $0.pointee }, [1, 2, 3])
        }
        XCTAssertEqual(
            box.withCriticalSection { _, word in word.clearBits(1) }, LockedBoxWithWord<[Int]>.hasLockFreeWord ? 8 : 7)
    }

    func testTheBoxIsCountedWhileItLivesInDebugBuilds() {
        let before = LiveObjects.count
        var box: LockedBoxWithWord<Int>? = LockedBoxWithWord(tracking: 1)
        #if DEBUG
            XCTAssertEqual(LiveObjects.count, before + 1)
        #endif
        box = nil
        XCTAssertNil(box)
        XCTAssertEqual(LiveObjects.count, before)
    }
}

final class LockedBoxWithWordConcurrencyTests: XCTestCase {
    /// Critical sections are mutually exclusive, and lock-free compare-exchanges interleave with them without
    /// losing an update of either.
    func testCriticalSectionsAndLockFreeStepsLoseNothing() {
        let box = LockedBoxWithWord(tracking: 0)
        runConcurrently(threads: 8) { thread in
            for _ in 0..<5_000 {
                if thread % 2 == 0 || !LockedBoxWithWord<Int>.hasLockFreeWord {
                    box.withCriticalSection { value, word in
                        value += 1
                        // The word may change under the lock too (lock-free steps do not take it): compare-exchange.
                        while true {
                            let old = word.load()
                            if word.compareExchange(expected: old, desired: old + 1) { break }
                        }
                    }
                } else {
                    box.withCriticalSection { value, _ in value += 1 }
                    while true {
                        let old = box.loadWord()
                        if box.compareExchangeWord(expected: old, desired: old + 1) { break }
                    }
                }
            }
        }
        XCTAssertEqual(box.withCriticalSection { value, _ in value }, 40_000)
        XCTAssertEqual(box.withCriticalSection { _, word in word.load() }, 40_000)
    }
}
