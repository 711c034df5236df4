#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A ``LockedBox`` with one more word beside the lock, for state machines that keep a lock-free fast path: the word
/// can be read and compare-exchanged without the lock, while everything else is changed only under it.
///
/// The lock, the word and the value share one heap object (the lock primitive in its header, then a ``WordAndValue``
/// in its tail), so adding the word costs 8 bytes rather than another allocation. Every operation on the word and the
/// value goes through an ``InlineOwnedState`` over that `WordAndValue`: the word-and-value layout is computed there
/// and nowhere else, for this box as for the objects that store a `WordAndValue` inline (subject subscriptions).
///
/// ```swift
/// let box = LockedBoxWithWord(tracking: State())
/// if LockedBoxWithWord<State>.hasLockFreeWord, box.compareExchangeWord(expected: 1, desired: 3) {
///     // fast path: the word's protocol, not the lock, makes this thread the only one here
/// }
/// box.withCriticalSection { state, word in /* the slow path: lock held, word readable and writable */ }
/// ```
///
/// Where `Synchronization.Atomic` is available unconditionally (Linux and other non-Darwin platforms) the word is
/// an `Atomic<Int>`. On Darwin the package's deployment floor is below `Atomic`'s (macOS 15), so there the word is a
/// plain `Int` that may only be touched under the lock, and ``hasLockFreeWord`` is `false`: callers must then skip
/// their fast path and take the lock every time (the semantics are the same; only the cost differs).
/// Building with `-Xswiftc -DUNTANGLE_LOCKED_WORD` selects the Darwin variant on any platform, so that the lock-only
/// path is tested on Linux too (`.ci/run` runs the test suite that way as well).
///
/// **Thread safety:** ``withCriticalSection(_:)`` from any thread (not reentrantly). The lock-free calls
/// (``loadWord()``, ``compareExchangeWord(expected:desired:)``, ``withUnlockedValue(_:)``) only where
/// ``hasLockFreeWord`` is true, and ``withUnlockedValue(_:)`` only under a protocol, kept by the caller, that makes
/// every concurrent access to the fields it reads a read.
@usableFromInline
package struct LockedBoxWithWord<Value> {
    @usableFromInline let storage: WordLockStorage<Value>

    /// Creates the box; in debug builds it is counted by ``LiveObjects`` while it lives (as
    /// `LockedBox(tracking:)`).
    @inlinable
    package init(tracking value: consuming Value) {
        #if DEBUG
            storage = TrackedWordLockStorage<Value>.create(value: value)
            LiveObjects.increment()
        #else
            storage = WordLockStorage<Value>.create(value: value)
        #endif
    }

    /// Whether the word may be used without the lock on this platform.
    @inlinable
    package static var hasLockFreeWord: Bool {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            return false
        #else
            return true
        #endif
    }

    /// A library critical section over the value and the word (counted by ``CalloutCheck`` in debug builds).
    @inlinable
    package func withCriticalSection<Result>(_ body: (inout Value, WordAccess) throws -> Result) rethrows -> Result {
        try storage.withCriticalSection(body)
    }

    /// Reads the word without the lock (acquiring: what was written before the store or exchange that produced
    /// the value read is visible). Only where ``hasLockFreeWord``.
    @inlinable
    package func loadWord() -> Int {
        // `_withUnsafeGuaranteedRef`: the box keeps its storage alive for as long as the caller holds the box, so
        // the lock-free paths need no retain and release of the storage around them.
        Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { $0.state.loadWord() }
    }

    /// Replaces the word with `desired` if it is `expected`, without the lock (acquiring and releasing); returns
    /// whether it did. Only where ``hasLockFreeWord``.
    @inlinable
    package func compareExchangeWord(expected: Int, desired: Int) -> Bool {
        Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef {
            $0.state.compareExchangeWord(expected: expected, desired: desired)
        }
    }

    /// Gives `body` the value's address without taking the lock. The caller's protocol (for example: only the
    /// thread that won the word reads this field, and nobody writes it meanwhile) is what makes this safe.
    @inlinable
    package func withUnlockedValue<Result>(_ body: (UnsafeMutablePointer<Value>) throws -> Result) rethrows -> Result {
        try Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { try body($0.state.value) }
    }
}

extension LockedBoxWithWord: @unchecked Sendable where Value: Sendable {}

/// The word of a ``LockedBoxWithWord``, as seen inside its critical section or through its lock-free calls: the
/// same accessor as a word kept anywhere else (``RawWordAccess``), at the word's place in the box's
/// ``WordAndValue``.
///
/// **Thread safety:** atomic where ``LockedBoxWithWord/hasLockFreeWord``; elsewhere use it under the lock only.
@usableFromInline
package typealias WordAccess = RawWordAccess

/// The heap object behind ``LockedBoxWithWord``: the lock primitive in the header (a trivial C struct, at a fixed
/// address), one ``WordAndValue`` in the tail, reached only through ``state`` (an ``InlineOwnedState``).
/// Not final only for the debug-build tracking subclass.
@usableFromInline
class WordLockStorage<Value>: ManagedBuffer<LockPrimitive, WordAndValue<Value>> {
    @inlinable
    final class func create(value: consuming Value) -> WordLockStorage<Value> {
        let buffer = Self.create(minimumCapacity: 1) { _ in LockPrimitive() }
        // `create` is declared to return ManagedBuffer; the dynamic type is Self.
        let storage = unsafeDowncast(buffer, to: Self.self)
        // The tail's address outlives the closure: the storage is alive, and the tail does not move.
        let tail = storage.withUnsafeMutablePointerToElements { $0 }
        assert(UnsafeMutableRawPointer(tail) == storage.tail, "WordLockStorage: the tail is where `tail` computes it")
        // Moved into the tail, not copied (see `LockStorage.create`).
        tail.initialize(to: WordAndValue(word: 0, value: value))
        LockPrimitiveOps.initialize(storage.primitive)
        return storage
    }

    // The tail's address, computed from the value's alignment alone: where `ManagedBuffer` puts its elements (after
    // the header, at the element's alignment; a `WordAndValue`'s is the word's or the value's, whichever is larger).
    //
    // Performance: for the deinit only. `withUnsafeMutablePointerToElements` needs the element type's metadata for
    // its alignment, and in code compiled unspecialized (this class's deinit always is) `WordAndValue<Value>`'s
    // metadata is a runtime lookup (`swift_getGenericMetadata` hashing the arguments and searching a cache, about 460
    // instructions) where `Value`'s is one load from the class's own metadata: 3 lookups per `Just.map.flatMap`
    // subscription (core-just-map-flatmap; Benchmarks/README.md, "The fourth session"). Specialized code keeps
    // `ManagedBuffer`'s accessors, which cost nothing there (this computation, used on the lock-free path, cost
    // combinelatest-2 +12% instructions). Checked against `ManagedBuffer`'s own address in `create` (debug builds)
    // and by InlineOwnedStateTests for values of every alignment.
    @inlinable
    final var tail: UnsafeMutableRawPointer {
        let object = UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
        let header = withUnsafeMutablePointerToHeader { UnsafeMutableRawPointer($0) }
        let alignment = Swift.max(MemoryLayout<RawWordAccess.Slot>.alignment, MemoryLayout<Value>.alignment)
        let end = header - object + MemoryLayout<LockPrimitive>.size
        return object + (end + alignment - 1) / alignment * alignment
    }

    /// The word and the value in the tail.
    @inlinable
    final var state: InlineOwnedState<Value> {
        withUnsafeMutablePointerToElements { InlineOwnedState(at: $0) }
    }

    /// The lock primitive in the header (its address from the buffer, never through an `&` access: that would be a
    /// "modifying access" which ThreadSanitizer reports as a race between two threads taking the lock).
    @inlinable
    final var primitive: UnsafeMutablePointer<LockPrimitive> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    @inlinable
    final func withCriticalSection<Result>(_ body: (inout Value, WordAccess) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { primitive, tail in
            let state = InlineOwnedState(at: tail)
            LockPrimitiveOps.lock(primitive)
            CalloutCheck.enter()
            defer {
                CalloutCheck.leave()
                LockPrimitiveOps.unlock(primitive)
            }
            return try body(&state.value.pointee, state.word)
        }
    }

    // The header is a trivial C struct: `destroy` deinitializing it before `ManagedBuffer`'s own deinit does again
    // is a no-op both times. Only the value is deinitialized, not the whole `WordAndValue`: the word is an `Int`, or
    // an `Atomic<Int>`, whose deinitialization does nothing, and deinitializing the pair (this deinit is compiled
    // once, unspecialized) looked up the pair's metadata and ran `Atomic`'s generic deinit (about 770 instructions
    // per box freed; see `tail`).
    @inlinable
    deinit {
        LockPrimitiveOps.destroy(primitive)
        InlineOwnedState<Value>(atRawAddress: tail).value.deinitialize(count: 1)
    }
}

#if DEBUG
    /// A library-owned state cell with a word, counted by ``LiveObjects`` while it lives (debug builds only).
    @usableFromInline
    final class TrackedWordLockStorage<Value>: WordLockStorage<Value> {
        deinit {
            LiveObjects.decrement()
        }
    }
#endif
