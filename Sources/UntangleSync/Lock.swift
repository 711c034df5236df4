#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#else
    #error("UntangleSync needs Darwin, Glibc or Musl")
#endif

#if canImport(Darwin)
    @usableFromInline typealias LockPrimitive = os_unfair_lock
#else
    @usableFromInline typealias LockPrimitive = pthread_mutex_t
#endif

/// A non-recursive mutual-exclusion lock: `pthread_mutex_t` on Linux, `os_unfair_lock` on Darwin.
///
/// The primitive lives in a tail allocation of a heap object, so it never moves, however the `Lock`
/// value itself is copied: every copy of a `Lock` is the same lock.
///
/// ```swift
/// let lock = Lock()
/// var hits = 0
/// lock.withLock { hits += 1 }
/// ```
///
/// In debug builds the Linux mutex is created with `PTHREAD_MUTEX_ERRORCHECK`: taking it twice on one thread,
/// or unlocking it from a thread that does not hold it, stops the program with a message instead of deadlocking.
///
/// **Thread safety:** every method may be called from any thread. The lock is not recursive: never call out to
/// code you do not control (a subscriber, a user closure) while holding it; decide under the lock, act after.
public struct Lock: @unchecked Sendable {
    @usableFromInline let storage: LockStorage<Void>

    /// Creates an unlocked lock.
    @inlinable
    public init() {
        storage = LockStorage.create(value: ())
    }

    /// Acquires the lock, waiting while another thread holds it.
    @inlinable
    public func lock() { storage.lock() }

    /// Releases the lock. Only the thread that acquired it may release it.
    @inlinable
    public func unlock() { storage.unlock() }

    /// Runs `body` with the lock held and returns its result.
    ///
    /// - Parameter body: A short critical section. It must not call back into code that may take this lock.
    @inlinable
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        storage.lock()
        defer { storage.unlock() }
        return try body()
    }
}

extension Lock {
    /// The library's own critical sections go through here, so that debug builds can check that no library lock is
    /// held at a callout point (see ``CalloutCheck``). Users' own uses of `Lock` are not counted.
    @inlinable
    package func withCriticalSection<Result>(_ body: () throws -> Result) rethrows -> Result {
        try storage.withCriticalSection(body)
    }
}

/// A ``Lock`` seen without a reference count: for a struct formed per call (an emitter over a state that another
/// object owns) that must not retain and release the lock's storage every time. Whoever forms it keeps the `Lock`
/// alive for as long as it is used.
///
/// ```swift
/// let view = UnretainedLock(lock)        // `lock` stays stored elsewhere
/// view.withCriticalSection { /* ... */ }
/// ```
///
/// **Thread safety:** as ``Lock``'s library critical sections.
@usableFromInline
package struct UnretainedLock {
    @usableFromInline let storage: Unmanaged<LockStorage<Void>>

    @inlinable
    package init(_ lock: Lock) {
        storage = .passUnretained(lock.storage)
    }

    /// A library critical section (counted by ``CalloutCheck`` in debug builds), as ``Lock/withCriticalSection(_:)``.
    @inlinable
    package func withCriticalSection<Result>(_ body: () throws -> Result) rethrows -> Result {
        try storage._withUnsafeGuaranteedRef { try $0.withCriticalSection(body) }
    }
}

/// The heap object behind ``Lock`` and ``LockedBox``: the protected value in the header, the primitive in the tail.
///
/// Not final only so that ``TrackedLockStorage`` can count the library's own state cells in debug builds; every
/// method is final.
@usableFromInline
class LockStorage<Value>: ManagedBuffer<Value, LockPrimitive> {
    @inlinable
    final class func create(value: consuming Value) -> LockStorage<Value> {
        // Moved into the header, not copied (a copy of a generic state value is a value-witness call per field).
        var pending = Optional(value)
        let buffer = Self.create(minimumCapacity: 1) { _ in pending.take().unsafelyUnwrapped }
        // `create` is declared to return ManagedBuffer; the dynamic type is Self.
        let storage = unsafeDowncast(buffer, to: Self.self)
        storage.withUnsafeMutablePointerToElements { LockPrimitiveOps.initialize($0) }
        return storage
    }

    /// A library critical section: the lock held and counted by ``CalloutCheck`` in debug builds.
    @inlinable
    final func withCriticalSection<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        CalloutCheck.enter()
        defer {
            CalloutCheck.leave()
            unlock()
        }
        return try body()
    }

    @inlinable
    final func lock() {
        withUnsafeMutablePointerToElements { LockPrimitiveOps.lock($0) }
    }

    @inlinable
    final func unlock() {
        withUnsafeMutablePointerToElements { LockPrimitiveOps.unlock($0) }
    }

    @inlinable
    deinit {
        withUnsafeMutablePointerToElements { LockPrimitiveOps.destroy($0) }
    }
}

#if DEBUG
    /// A library-owned state cell, counted by ``LiveObjects`` while it lives (debug builds only).
    @usableFromInline
    final class TrackedLockStorage<Value>: LockStorage<Value> {
        deinit {
            LiveObjects.decrement()
        }
    }
#endif

/// The platform calls, in one place.
@usableFromInline
enum LockPrimitiveOps {
    @inlinable
    static func initialize(_ mutex: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            mutex.initialize(to: os_unfair_lock())
        #else
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            #if DEBUG
                pthread_mutexattr_settype(&attributes, .init(PTHREAD_MUTEX_ERRORCHECK))
            #endif
            let error = pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
            precondition(error == 0, "Lock: pthread_mutex_init failed with error \(error)")
        #endif
    }

    @inlinable
    static func lock(_ mutex: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            os_unfair_lock_lock(mutex)
        #else
            let error = pthread_mutex_lock(mutex)
            if error != 0 {
                lockFailure(error)
            }
        #endif
    }

    @inlinable
    static func unlock(_ mutex: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
            os_unfair_lock_unlock(mutex)
        #else
            let error = pthread_mutex_unlock(mutex)
            if error != 0 {
                unlockFailure(error)
            }
        #endif
    }

    @inlinable
    static func destroy(_ mutex: UnsafeMutablePointer<LockPrimitive>) {
        #if !canImport(Darwin)
            pthread_mutex_destroy(mutex)
        #endif
        mutex.deinitialize(count: 1)
    }

    @usableFromInline
    static func lockFailure(_ error: Int32) -> Never {
        if error == EDEADLK {
            preconditionFailure(
                "Lock: this thread already holds the lock. Lock is not recursive: a callout made while holding it "
                    + "re-entered the same critical section."
            )
        }
        preconditionFailure("Lock: pthread_mutex_lock failed with error \(error)")
    }

    @usableFromInline
    static func unlockFailure(_ error: Int32) -> Never {
        if error == EPERM {
            preconditionFailure("Lock: unlock() from a thread that does not hold the lock.")
        }
        preconditionFailure("Lock: pthread_mutex_unlock failed with error \(error)")
    }
}
