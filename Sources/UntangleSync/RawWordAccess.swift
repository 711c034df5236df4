#if !(canImport(Darwin) || UNTANGLE_LOCKED_WORD)
    import Synchronization
#endif

/// An owner word at a fixed address: the word of a ``WordAndValue`` kept inline in an object, or in a
/// ``LockedBoxWithWord``'s tail (``WordAccess`` is this type). Atomic where ``LockedBoxWithWord/hasLockFreeWord``,
/// otherwise a plain `Int` that may only be touched under the caller's lock.
///
/// ```swift
/// let word = RawWordAccess(addressOfAWordAndValue)
/// _ = word.compareExchange(expected: 0, desired: 1)
/// ```
///
/// **Thread safety:** as ``WordAccess``.
@usableFromInline
package struct RawWordAccess {
    #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
        @usableFromInline typealias Slot = Int
    #else
        @usableFromInline typealias Slot = Atomic<Int>
    #endif

    @usableFromInline let slot: UnsafeMutablePointer<Slot>

    /// The word at `memory` (initialized, and at a fixed address while it is used).
    @inlinable
    package init(_ memory: UnsafeMutableRawPointer) {
        slot = memory.assumingMemoryBound(to: Slot.self)
    }

    /// The bytes the word takes.
    @inlinable
    package static var size: Int { MemoryLayout<Slot>.size }

    /// The word (acquiring).
    @inlinable
    package func load() -> Int {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            return slot.pointee
        #else
            return slot.pointee.load(ordering: .acquiring)
        #endif
    }

    /// Stores the word (releasing).
    @inlinable
    package func store(_ value: Int) {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            slot.pointee = value
        #else
            slot.pointee.store(value, ordering: .releasing)
        #endif
    }

    /// Clears the bits of `mask` and returns the previous word (acquiring and releasing).
    @inlinable
    package func clearBits(_ mask: Int) -> Int {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            let old = slot.pointee
            slot.pointee = old & ~mask
            return old
        #else
            return slot.pointee.bitwiseAnd(~mask, ordering: .acquiringAndReleasing).oldValue
        #endif
    }

    /// Replaces the word with `desired` if it is `expected` (acquiring and releasing); returns whether it did.
    @inlinable
    package func compareExchange(expected: Int, desired: Int) -> Bool {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            guard slot.pointee == expected else { return false }
            slot.pointee = desired
            return true
        #else
            return slot.pointee.compareExchange(expected: expected, desired: desired, ordering: .acquiringAndReleasing)
                .exchanged
        #endif
    }
}

/// A word followed by a value, to be stored inline in an object that reaches both through a raw pointer to this
/// struct: the word with ``RawWordAccess`` at the pointer, the value at ``valueOffset`` (what an emitter's state
/// needs: an owner word and a state machine at addresses that do not move).
///
/// ```swift
/// final class Cell {
///     var state: WordAndValue<Int>   // the first stored property (see `_getUnsafePointerToStoredProperties`)
///     init() { state = WordAndValue(word: 0, value: 42) }
///     var address: UnsafeMutableRawPointer { _getUnsafePointerToStoredProperties(self) }
/// }
/// let cell = Cell()
/// _ = RawWordAccess(cell.address).compareExchange(expected: 0, desired: 1)
/// let value = (cell.address + WordAndValue<Int>.valueOffset).assumingMemoryBound(to: Int.self).pointee
/// ```
///
/// Noncopyable where the word is an `Atomic` (it must not move); elsewhere both fields are plain values, and the
/// struct stays copyable (as ``LockedBoxWithWord``'s tail does).
///
/// **Thread safety:** the word as ``RawWordAccess``; the value is the owner's to guard.
#if canImport(Darwin) || UNTANGLE_LOCKED_WORD
    @usableFromInline
    package struct WordAndValue<Value> {
        @usableFromInline var word: RawWordAccess.Slot
        @usableFromInline var value: Value

        @inlinable
        package init(word: Int, value: consuming Value) {
            self.word = word
            self.value = value
        }
    }
#else
    @usableFromInline
    package struct WordAndValue<Value>: ~Copyable {
        @usableFromInline let word: RawWordAccess.Slot
        @usableFromInline var value: Value

        @inlinable
        package init(word: Int, value: consuming Value) {
            self.word = Atomic(word)
            self.value = value
        }
    }
#endif

extension WordAndValue {
    /// Where `value` sits: after the word, at the value's alignment (stored properties are laid out in order).
    @inlinable
    package static var valueOffset: Int {
        MemoryLayout<Value>.offset(placedAfter: RawWordAccess.size)
    }
}

extension MemoryLayout where T: ~Copyable {
    /// Where a stored property of type `T` starts when it follows `bytes` bytes of other stored properties: `bytes`
    /// rounded up to `T`'s alignment (Swift lays stored properties out in order, each at its alignment).
    @inlinable
    package static func offset(placedAfter bytes: Int) -> Int {
        (bytes + alignment - 1) / alignment * alignment
    }
}
