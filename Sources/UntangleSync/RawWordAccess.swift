#if !(canImport(Darwin) || UNTANGLE_LOCKED_WORD)
    import Synchronization
#endif

/// An owner word at a fixed address: in memory the caller allocates and owns, or in a ``LockedBoxWithWord``'s tail
/// (``WordAccess`` is this type). Atomic where ``LockedBoxWithWord/hasLockFreeWord``, otherwise a plain `Int` that
/// may only be touched under the caller's lock.
///
/// ```swift
/// let memory = UnsafeMutableRawPointer.allocate(byteCount: RawWordAccess.size, alignment: RawWordAccess.alignment)
/// RawWordAccess.initialize(memory, to: 0)
/// let word = RawWordAccess(memory)
/// _ = word.compareExchange(expected: 0, desired: 1)
/// RawWordAccess.deinitialize(memory)
/// memory.deallocate()
/// ```
///
/// **Demand:** not applicable (a synchronization primitive, not a stream).
/// **Thread safety:** as ``WordAccess``.
@usableFromInline
package struct RawWordAccess {
    #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
        @usableFromInline typealias Slot = Int
    #else
        @usableFromInline typealias Slot = Atomic<Int>
    #endif

    @usableFromInline let slot: UnsafeMutablePointer<Slot>

    /// The word at `memory`, which ``initialize(_:to:)`` prepared.
    @inlinable
    package init(_ memory: UnsafeMutableRawPointer) {
        slot = memory.assumingMemoryBound(to: Slot.self)
    }

    /// The bytes and the alignment the word needs.
    @inlinable
    package static var size: Int { MemoryLayout<Slot>.size }

    @inlinable
    package static var alignment: Int { MemoryLayout<Slot>.alignment }

    /// Makes `memory` (uninitialized, at a fixed address until ``deinitialize(_:)``) hold a word equal to `value`.
    @inlinable
    package static func initialize(_ memory: UnsafeMutableRawPointer, to value: Int) {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            memory.bindMemory(to: Slot.self, capacity: 1).initialize(to: value)
        #else
            memory.bindMemory(to: Slot.self, capacity: 1).initialize(to: Atomic(value))
        #endif
    }

    @inlinable
    package static func deinitialize(_ memory: UnsafeMutableRawPointer) {
        memory.assumingMemoryBound(to: Slot.self).deinitialize(count: 1)
    }

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
/// **Demand:** not applicable (a synchronization primitive, not a stream).
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
        let alignment = MemoryLayout<Value>.alignment
        return (RawWordAccess.size + alignment - 1) / alignment * alignment
    }
}
