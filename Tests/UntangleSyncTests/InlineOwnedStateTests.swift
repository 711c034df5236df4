import XCTest

@testable import UntangleSync

/// `InlineOwnedState` and `RawReference`: the layout assumptions they rest on and the operations they offer, checked
/// directly (release builds included), for values of several sizes and alignments, in both kinds of holder of an
/// `InlineOwnedState` (an object storing it inline, `LockedBoxWithWord`).
final class InlineOwnedStateTests: XCTestCase {
    /// A base class with one stored reference, as a subject's conduit has (its entries).
    class OneReferenceBase {
        var reference: AnyObject?
    }

    /// Stores its state right after the base class's reference, as a subject subscription does.
    final class Holder<Value>: OneReferenceBase {
        var state: WordAndValue<Value>

        init(word: Int, value: Value) {
            state = WordAndValue(word: word, value: value)
        }

        var inline: InlineOwnedState<Value> { InlineOwnedState(inStoredPropertiesOf: self, afterReferences: 1) }
    }

    /// Stores its state as the first stored property of a root class.
    final class RootHolder<Value> {
        var state: WordAndValue<Value>

        init(value: Value) {
            state = WordAndValue(word: 0, value: value)
        }

        var inline: InlineOwnedState<Value> { InlineOwnedState(inStoredPropertiesOf: self, afterReferences: 0) }
    }

    func checkAddresses<Value>(_ value: Value, file: StaticString = #filePath, line: UInt = #line) {
        let holder = Holder(word: 0, value: value)
        XCTAssertTrue(holder.inline.isAddress(of: &holder.state), "the state's address", file: file, line: line)
        let valueAddress = withUnsafeMutablePointer(to: &holder.state.value) { $0 }
        XCTAssertEqual(holder.inline.value, valueAddress, "the value's address", file: file, line: line)
        let root = RootHolder(value: value)
        XCTAssertTrue(root.inline.isAddress(of: &root.state), "a root class's state", file: file, line: line)
        checkBoxAddresses(value, file: file, line: line)
    }

    /// `LockedBoxWithWord` keeps its word and value in a `WordAndValue` in its tail, reached through
    /// `InlineOwnedState`: the address its lock-free calls use is the one its critical section changes (the emitter's
    /// lock-free path reads its downstream there).
    func checkBoxAddresses<Value>(_ value: Value, file: StaticString, line: UInt) {
        let box = LockedBoxWithWord(tracking: value)
        let lockedAddress = box.withCriticalSection { value, word -> UnsafeMutablePointer<Value> in
            word.store(5)
            return withUnsafeMutablePointer(to: &value) { $0 }
        }
        XCTAssertEqual(box.withUnlockedValue { $0 }, lockedAddress, "a box's value", file: file, line: line)
        if LockedBoxWithWord<Value>.hasLockFreeWord {
            XCTAssertEqual(box.loadWord(), 5, "a box's word", file: file, line: line)
            XCTAssertTrue(box.compareExchangeWord(expected: 5, desired: 6), file: file, line: line)
        } else {
            box.withCriticalSection { _, word in word.store(6) }
        }
        XCTAssertEqual(box.withCriticalSection { _, word in word.load() }, 6, "a box's word", file: file, line: line)
        XCTAssertEqual(
            box.storage.tail, box.storage.withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) },
            "the box's tail, computed from the value's alignment, is ManagedBuffer's", file: file, line: line)
    }

    /// The box's deinit deinitializes the value it holds (only the value: see `WordLockStorage.deinit`).
    func testReleasingABoxReleasesItsValue() {
        final class Token {}
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            let box = LockedBoxWithWord(tracking: (1, token))
            XCTAssertTrue(box.withCriticalSection { value, _ in value.1 === token })
        }
        XCTAssertNil(weakToken, "the box's value was not deinitialized with the box")
    }

    /// Inline in an object (after a base class's reference, or first in a root class) and in a `LockedBoxWithWord`.
    func testTheStateIsWhereItsAddressIsComputedForValuesOfEveryAlignment() {
        checkAddresses(UInt8(7))
        checkAddresses(42)
        checkAddresses((1, true))
        XCTAssertEqual(MemoryLayout<SIMD4<Float>>.alignment, 16)
        checkAddresses(SIMD4<Float>(1, 2, 3, 4))
        checkAddresses("a string" as Any)
    }

    func testTheValueIsReadAndWrittenInPlace() {
        let holder = Holder(word: 0, value: 5)
        holder.inline.withUnlockedValue { $0.pointee += 1 }
        XCTAssertEqual(holder.state.value, 6)
        holder.state.value = 9
        XCTAssertEqual(holder.inline.value.pointee, 9)
        let box = LockedBoxWithWord(tracking: [1])
        box.withUnlockedValue { $0.pointee.append(2) }
        XCTAssertEqual(box.withCriticalSection { value, _ in value }, [1, 2], "a box's value")
    }

    func testClaimingAndGivingBackAreOneCompareExchangeOfTheWord() throws {
        try XCTSkipUnless(LockedBoxWithWord<Int>.hasLockFreeWord, "the word is touched under the lock only here")
        let holder = Holder(word: 1, value: 0)
        let inline = holder.inline
        XCTAssertFalse(inline.claim(expected: 0, desired: 3), "claimed from a word it is not")
        XCTAssertEqual(inline.loadWord(), 1)
        XCTAssertTrue(inline.claim(expected: 1, desired: 3))
        XCTAssertEqual(inline.loadWord(), 3)
        XCTAssertFalse(inline.claim(expected: 1, desired: 5), "claimed twice")
        XCTAssertTrue(inline.compareExchangeWord(expected: 3, desired: 1), "given back")
        XCTAssertFalse(inline.compareExchangeWord(expected: 3, desired: 1), "given back twice")
        XCTAssertEqual(inline.loadWord(), 1)
    }

    func testTheCriticalSectionHoldsTheGivenLockOverTheValueAndTheWord() {
        let lock = Lock()
        let holder = Holder(word: 0, value: [1])
        let result = holder.inline.withCriticalSection(lock: UnretainedLock(lock)) { value, word -> Int in
            #if DEBUG
                XCTAssertEqual(CalloutCheck.heldByCurrentThread, 1, "a library critical section")
            #endif
            value.append(2)
            XCTAssertEqual(word.clearBits(0), 0)
            word.store(8)
            return value.count
        }
        XCTAssertEqual(result, 2)
        XCTAssertEqual(holder.state.value, [1, 2])
        XCTAssertEqual(holder.inline.withCriticalSection(lock: UnretainedLock(lock)) { _, word in word.load() }, 8)
    }

    func testCriticalSectionsOnOneSharedLockAreExactUnderContention() {
        let lock = Lock()
        let holders = SharedHolders((0..<4).map { _ in Holder(word: 0, value: 0) })
        runConcurrently(threads: 4) { thread in
            for _ in 0..<2_000 {
                holders.all[thread].inline.withCriticalSection(lock: UnretainedLock(lock)) { value, _ in
                    value += 1
                }
                holders.all[(thread + 1) % 4].inline.withCriticalSection(lock: UnretainedLock(lock)) { value, _ in
                    value += 1
                }
            }
        }
        XCTAssertEqual(holders.all.map { $0.state.value }, [4_000, 4_000, 4_000, 4_000])
    }

    /// The holders, shared with the test's threads (each value is touched only under the one lock).
    final class SharedHolders: @unchecked Sendable {
        let all: [Holder<Int>]

        init(_ all: [Holder<Int>]) {
            self.all = all
        }
    }

    // MARK: RawReference

    final class Object {}

    func testBorrowAndDowncastReturnTheSameObject() {
        let object = Object()
        let erased: AnyObject = object
        XCTAssertTrue(RawReference.borrow(object) { $0 === object })
        XCTAssertTrue(RawReference.downcast(erased, to: Object.self) === object)
    }

    func testRetainedBitsGiveTheReferenceBackOnce() {
        weak var weakObject: Object?
        var bits = 0
        do {
            let object = Object()
            weakObject = object
            bits = RetainedBits.retaining(object)
        }
        XCTAssertNotNil(weakObject)
        XCTAssertTrue(RetainedBits.take(bits) === weakObject)
        XCTAssertNil(weakObject, "taken back and dropped")
        do {
            let object = Object()
            weakObject = object
            bits = RetainedBits.retaining(object)
        }
        RetainedBits.release(bits)
        XCTAssertNil(weakObject, "released")
    }
}
