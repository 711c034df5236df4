/// A value that can only be read or changed while holding its own ``Lock``.
///
/// `LockedBox` is the answer to "how do I make this property thread-safe?". It deliberately has no
/// `get`/`set` accessors: a lock taken separately for a read and for the following write makes
/// `box.value += 1` lose updates under contention. Every read-modify-write is one `withLock` call.
///
/// ```swift
/// let hits = LockedBox(0)
/// hits.withLock { $0 += 1 }
/// let seen = hits.withLock { $0 }
/// ```
///
/// `LockedBox` has reference semantics: copies share the value and the lock.
///
/// **Thread safety:** `withLock` and `update` may be called from any thread. The closure runs with the lock held:
/// keep it short and never call out from it to code that might touch the same box (the lock is not recursive, and
/// in debug builds a re-entrant use stops the program with a message instead of deadlocking).
public struct LockedBox<Value> {
    @usableFromInline let storage: LockStorage<Value>

    /// Creates a box holding `value`.
    @inlinable
    public init(_ value: Value) {
        storage = LockStorage.create(value: value)
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @inlinable
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        storage.lock()
        defer { storage.unlock() }
        return try storage.withUnsafeMutablePointerToHeader { try body(&$0.pointee) }
    }

    /// Replaces the value with `transform(oldValue)` atomically and returns the new value.
    @inlinable
    @discardableResult
    public func update(_ transform: (Value) throws -> Value) rethrows -> Value {
        try withLock { value in
            value = try transform(value)
            return value
        }
    }
}

extension LockedBox: @unchecked Sendable where Value: Sendable {}

extension LockedBox {
    /// Creates a box for library-owned state: in debug builds it is counted by ``LiveObjects`` while it lives, so a
    /// leaked subscription or subject (each holds at least one such box) shows up as a count that does not return
    /// to its baseline. Identical to ``init(_:)`` in release builds.
    @inlinable
    package init(tracking value: consuming Value) {
        #if DEBUG
            storage = TrackedLockStorage<Value>.create(value: value)
            LiveObjects.increment()
        #else
            storage = LockStorage.create(value: value)
        #endif
    }
}

extension LockedBox {
    /// A library critical section over the value (counted by ``CalloutCheck`` in debug builds).
    @inlinable
    package func withCriticalSection<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withCriticalSection { try storage.withUnsafeMutablePointerToHeader { try body(&$0.pointee) } }
    }
}
