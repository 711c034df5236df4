/// Debug-build count of the library's live state cells (the lock-protected state of every subscription, subject and
/// stateful helper the library creates).
///
/// Each library object that keeps state holds at least one cell, created with ``LockedBox/init(tracking:)``, so the
/// count returns to its earlier value once every subscription and subject created since then has been released: a
/// count that does not come back is a leak. Release builds do not count (the count stays 0).
///
/// ```swift
/// let before = LiveObjects.count
/// runScenario()
/// assert(LiveObjects.count <= before, "leaked \(LiveObjects.count - before) library objects")
/// ```
///
/// **Thread safety:** every member may be used from any thread.
@usableFromInline
package enum LiveObjects {
    #if DEBUG
        // A plain (untracked) box: counting must not count itself.
        @usableFromInline
        static let counter = LockedBox<Int>(0)
    #endif

    /// The number of live library state cells (always 0 in release builds).
    package static var count: Int {
        #if DEBUG
            return counter.withLock { $0 }
        #else
            return 0
        #endif
    }

    @inlinable
    package static func increment() {
        #if DEBUG
            counter.withLock { $0 += 1 }
        #endif
    }

    @inlinable
    package static func decrement() {
        #if DEBUG
            counter.withLock { $0 -= 1 }
        #endif
    }
}
