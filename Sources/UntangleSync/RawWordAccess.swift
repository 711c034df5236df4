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
