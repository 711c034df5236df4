#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of a thread, used by the emitter to recognize a same-thread (reentrant) signal.
///
/// **Thread safety:** `current` may be read from any thread; values are compared, never dereferenced.
@usableFromInline
package struct ThreadID: Equatable {
    @usableFromInline let raw: pthread_t

    /// The calling thread.
    @inlinable
    package static var current: ThreadID { ThreadID(raw: pthread_self()) }

    @inlinable
    init(raw: pthread_t) { self.raw = raw }

    /// The identity as a word, for an emitter's lock-free owner word. A `pthread_t` is the address of the thread's
    /// control block (glibc, musl, Darwin), so it is never 0 and its low bit is always clear: the word keeps a flag
    /// there.
    @inlinable
    package var bits: Int {
        #if canImport(Darwin)
            return Int(bitPattern: raw)
        #else
            return Int(bitPattern: UInt(raw))
        #endif
    }

    /// The identity stored by ``bits`` (with the low bit ignored), or nil for a word without an owner.
    @inlinable
    package init?(bits: Int) {
        let owner = bits & ~1
        guard owner != 0 else { return nil }
        #if canImport(Darwin)
            raw = pthread_t(bitPattern: owner)!
        #else
            raw = pthread_t(UInt(bitPattern: owner))
        #endif
    }

    @inlinable
    package static func == (lhs: ThreadID, rhs: ThreadID) -> Bool {
        pthread_equal(lhs.raw, rhs.raw) != 0
    }
}

// A thread identity is only compared, never dereferenced, so passing it between threads is safe.
extension ThreadID: @unchecked Sendable {}
