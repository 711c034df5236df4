#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of a thread, used by the emitter to recognize a same-thread (reentrant) signal.
///
/// **Demand:** not applicable.
/// **Thread safety:** `current` may be read from any thread; values are compared, never dereferenced.
@usableFromInline
package struct ThreadID: Equatable {
    @usableFromInline let raw: pthread_t

    /// The calling thread.
    @inlinable
    package static var current: ThreadID { ThreadID(raw: pthread_self()) }

    @inlinable
    init(raw: pthread_t) { self.raw = raw }

    @inlinable
    package static func == (lhs: ThreadID, rhs: ThreadID) -> Bool {
        pthread_equal(lhs.raw, rhs.raw) != 0
    }
}

// A thread identity is only compared, never dereferenced, so passing it between threads is safe.
extension ThreadID: @unchecked Sendable {}
