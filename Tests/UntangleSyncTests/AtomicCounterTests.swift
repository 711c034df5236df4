import UntangleSync
import XCTest

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class AtomicCounterTests: XCTestCase {
    func testOperationsReturnTheDocumentedValues() {
        let counter = AtomicCounter(5)
        XCTAssertEqual(counter.load(), 5)
        XCTAssertEqual(counter.increment(), 6)
        XCTAssertEqual(counter.decrement(), 5)
        XCTAssertEqual(counter.add(10), 15)
        XCTAssertEqual(counter.add(-20), -5)
        XCTAssertEqual(counter.exchange(7), -5)
        counter.store(3)
        XCTAssertEqual(counter.load(), 3)
    }

    func testCompareExchangeOnlyStoresWhenTheExpectedValueIsCurrent() {
        let counter = AtomicCounter(1)
        let failed = counter.compareExchange(expected: 0, desired: 9)
        XCTAssertFalse(failed.exchanged)
        XCTAssertEqual(failed.original, 1)
        XCTAssertEqual(counter.load(), 1)
        let succeeded = counter.compareExchange(expected: 1, desired: 9)
        XCTAssertTrue(succeeded.exchanged)
        XCTAssertEqual(succeeded.original, 1)
        XCTAssertEqual(counter.load(), 9)
    }

    // The `@Atomic` property-wrapper trap, replayed deterministically: a lock around `get` and another around `set`
    // let two increments interleave between the read and the write, so one is lost. `increment()` is one step.
    func testLockPerAccessReadThenWriteLosesAnUpdateThatIncrementKeeps() {
        let box = LockedBox(0)
        func get() -> Int { box.withLock { $0 } }
        func set(_ value: Int) { box.withLock { $0 = value } }
        let readByFirst = get()
        let readBySecond = get()
        set(readByFirst + 1)
        set(readBySecond + 1)
        XCTAssertEqual(get(), 1, "two increments through get/set left 1: one update was lost")

        let counter = AtomicCounter()
        counter.increment()
        counter.increment()
        XCTAssertEqual(counter.load(), 2)
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class AtomicCounterConcurrencyTests: XCTestCase {
    func testIncrementsAreExactAndEachReturnsADistinctValue() {
        let counter = AtomicCounter()
        let seen = LockedBox(Set<Int>())
        runConcurrently(threads: 8) { _ in
            var mine: [Int] = []
            mine.reserveCapacity(10_000)
            for _ in 0..<10_000 { mine.append(counter.increment()) }
            seen.withLock { $0.formUnion(mine) }
        }
        XCTAssertEqual(counter.load(), 80_000)
        XCTAssertEqual(seen.withLock { $0.count }, 80_000, "two increments returned the same value")
        XCTAssertEqual(seen.withLock { $0.min() }, 1)
        XCTAssertEqual(seen.withLock { $0.max() }, 80_000)
    }

    func testMixedAddsAndCompareExchangeMaximumUnderContention() {
        let total = AtomicCounter()
        let maximum = AtomicCounter(Int.min)
        runConcurrently(threads: 8) { thread in
            for step in 0..<5_000 {
                total.add(thread % 2 == 0 ? 3 : -1)
                let candidate = thread * 10_000 + step
                var seen = maximum.load()
                while candidate > seen {
                    let (exchanged, original) = maximum.compareExchange(expected: seen, desired: candidate)
                    if exchanged { break }
                    seen = original
                }
            }
        }
        XCTAssertEqual(total.load(), 4 * 5_000 * 3 - 4 * 5_000)
        XCTAssertEqual(maximum.load(), 7 * 10_000 + 4_999)
    }
}
