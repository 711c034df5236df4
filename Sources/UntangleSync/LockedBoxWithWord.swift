#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
    import Synchronization
#elseif canImport(Musl)
    import Musl
    import Synchronization
#endif

/// A ``LockedBox`` with one more word beside the lock, for state machines that keep a lock-free fast path: the word
/// can be read and compare-exchanged without the lock, while everything else is changed only under it.
///
/// The value, the lock and the word share one heap object (the lock and the word in its tail), so adding the word
/// costs 8 bytes rather than another allocation.
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
/// **Demand:** not applicable (a synchronization primitive, not a stream).
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
        try storage.withLockedValue(body)
    }

    /// Reads the word without the lock (acquiring: what was written before the store or exchange that produced
    /// the value read is visible). Only where ``hasLockFreeWord``.
    @inlinable
    package func loadWord() -> Int {
        // `_withUnsafeGuaranteedRef`: the box keeps its storage alive for as long as the caller holds the box, so
        // the lock-free paths need no retain and release of the storage around them.
        Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { storage in
            storage.withUnsafeMutablePointerToElements { WordAccess(tail: $0).load() }
        }
    }

    /// Replaces the word with `desired` if it is `expected`, without the lock (acquiring and releasing); returns
    /// whether it did. Only where ``hasLockFreeWord``.
    @inlinable
    package func compareExchangeWord(expected: Int, desired: Int) -> Bool {
        Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { storage in
            storage.withUnsafeMutablePointerToElements {
                WordAccess(tail: $0).compareExchange(expected: expected, desired: desired)
            }
        }
    }

    /// Gives `body` the value's address without taking the lock. The caller's protocol (for example: only the
    /// thread that won the word reads this field, and nobody writes it meanwhile) is what makes this safe.
    @inlinable
    package func withUnlockedValue<Result>(_ body: (UnsafeMutablePointer<Value>) throws -> Result) rethrows -> Result {
        try Unmanaged.passUnretained(storage)._withUnsafeGuaranteedRef { storage in
            try storage.withUnsafeMutablePointerToHeader(body)
        }
    }
}

extension LockedBoxWithWord: @unchecked Sendable where Value: Sendable {}

/// The word of a ``LockedBoxWithWord``, as seen inside its critical section or through its lock-free calls: the
/// same accessor as a word kept anywhere else (``RawWordAccess``), at the word's place in the box's tail.
///
/// **Demand:** not applicable.
/// **Thread safety:** atomic where ``LockedBoxWithWord/hasLockFreeWord``; elsewhere use it under the lock only.
@usableFromInline
package typealias WordAccess = RawWordAccess

extension RawWordAccess {
    /// The word in `tail`.
    @inlinable
    init(tail: UnsafeMutablePointer<WordLockTail>) {
        self.init(UnsafeMutableRawPointer(tail) + WordLockTail.wordOffset)
    }
}

/// The tail of a ``WordLockStorage``: the lock primitive and the word, at a fixed address.
///
/// Noncopyable where the word is an `Atomic` (it must not move); on Darwin both fields are plain values, and the
/// struct stays copyable so that nothing here depends on the noncopyable-generics runtime support of newer OSes.
#if canImport(Darwin) || UNTANGLE_LOCKED_WORD
    @usableFromInline
    package struct WordLockTail {
        @usableFromInline var primitive: LockPrimitive
        @usableFromInline var word: RawWordAccess.Slot

        @inlinable
        init() {
            primitive = LockPrimitive()
            word = 0
        }
    }
#else
    @usableFromInline
    package struct WordLockTail: ~Copyable {
        @usableFromInline var primitive: LockPrimitive
        @usableFromInline let word: RawWordAccess.Slot

        @inlinable
        init() {
            primitive = LockPrimitive()
            word = Atomic(0)
        }
    }
#endif

extension WordLockTail {
    /// Where `word` sits: after the primitive, at the word's alignment (stored properties are laid out in order;
    /// `WordLockStorage.create` checks it once).
    @inlinable
    static var wordOffset: Int {
        MemoryLayout<RawWordAccess.Slot>.offset(placedAfter: MemoryLayout<LockPrimitive>.size)
    }
}

/// The heap object behind ``LockedBoxWithWord``. Not final only for the debug-build tracking subclass.
@usableFromInline
class WordLockStorage<Value>: ManagedBuffer<Value, WordLockTail> {
    @inlinable
    final class func create(value: consuming Value) -> WordLockStorage<Value> {
        // Moved into the header, not copied (see `LockStorage.create`).
        var pending = Optional(value)
        let buffer = Self.create(minimumCapacity: 1) { _ in pending.take().unsafelyUnwrapped }
        // `create` is declared to return ManagedBuffer; the dynamic type is Self.
        let storage = unsafeDowncast(buffer, to: Self.self)
        storage.withUnsafeMutablePointerToElements { tail in
            tail.initialize(to: WordLockTail())
            // `primitive` is the tail's first stored property, so it sits at the tail's address (checked here once,
            // before the storage is shared: an `&tail.pointee.primitive` on every lock and unlock would be a
            // "modifying access" that ThreadSanitizer reports as a race between two threads taking the lock).
            withUnsafeMutablePointer(to: &tail.pointee.primitive) { field in
                assert(UnsafeMutableRawPointer(field) == UnsafeMutableRawPointer(tail), "WordLockTail layout")
            }
            // The same for the word (through `&` where it is a plain `var`: a copyable value passed by borrow may be
            // a temporary copy; the noncopyable `Atomic` is borrowed in place).
            #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
                withUnsafeMutablePointer(to: &tail.pointee.word) { field in
                    assert(
                        UnsafeRawPointer(field) == UnsafeRawPointer(tail) + WordLockTail.wordOffset,
                        "WordLockTail layout")
                }
            #else
                withUnsafePointer(to: tail.pointee.word) { field in
                    assert(
                        UnsafeRawPointer(field) == UnsafeRawPointer(tail) + WordLockTail.wordOffset,
                        "WordLockTail layout")
                }
            #endif
            LockPrimitiveOps.initialize(Self.primitive(tail))
        }
        return storage
    }

    @inlinable
    static func primitive(_ tail: UnsafeMutablePointer<WordLockTail>) -> UnsafeMutablePointer<LockPrimitive> {
        UnsafeMutableRawPointer(tail).assumingMemoryBound(to: LockPrimitive.self)
    }

    @inlinable
    final func withLockedValue<Result>(_ body: (inout Value, WordAccess) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { header, tail in
            let primitive = Self.primitive(tail)
            LockPrimitiveOps.lock(primitive)
            CalloutCheck.enter()
            defer {
                CalloutCheck.leave()
                LockPrimitiveOps.unlock(primitive)
            }
            return try body(&header.pointee, WordAccess(tail: tail))
        }
    }

    @inlinable
    deinit {
        withUnsafeMutablePointerToElements { tail in
            LockPrimitiveOps.destroy(Self.primitive(tail))
            tail.deinitialize(count: 1)
        }
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
