#if !canImport(Darwin)
    import Synchronization
#endif

/// One machine word changed in indivisible steps, stored inline in the object that owns it: the building block for
/// small lock-free state cells such as ``AnyCancellable``-style "take the action once" slots.
///
/// ```swift
/// final class Slot {
///     let word = AtomicWord(0)
///     func claim() -> Bool { word.compareExchange(expected: 0, desired: 1) }
/// }
/// ```
///
/// Where `Synchronization.Atomic` is available unconditionally (Linux and other non-Darwin platforms) this is an
/// `Atomic<Int>` inside its owner, so it costs 8 bytes and no allocation. On Darwin the package's deployment floor is
/// below `Atomic`'s (macOS 15), so there it is a ``LockedBox`` with the same semantics.
/// `-Xswiftc -DUNTANGLE_LOCKED_WORD` selects that variant on any platform (for tests).
///
/// **Thread safety:** every method may be called from any thread, concurrently; each is one indivisible step that
/// is acquiring and releasing (what a thread wrote before its step is visible to a thread whose step reads the
/// value it left), and none calls out.
@usableFromInline
package struct AtomicWord: ~Copyable, @unchecked Sendable {
    #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
        @usableFromInline let box: LockedBox<Int>
    #else
        @usableFromInline let atomic: Atomic<Int>
    #endif

    /// Creates the word holding `value`.
    @inlinable
    package init(_ value: Int) {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            box = LockedBox(value)
        #else
            atomic = Atomic(value)
        #endif
    }

    /// The current value.
    @inlinable
    package func load() -> Int {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            return box.withLock { $0 }
        #else
            return atomic.load(ordering: .acquiring)
        #endif
    }

    /// Stores `value` and returns the previous one.
    @inlinable
    package func exchange(_ value: Int) -> Int {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            return box.withLock { word in
                defer { word = value }
                return word
            }
        #else
            return atomic.exchange(value, ordering: .acquiringAndReleasing)
        #endif
    }

    /// Stores `desired` if the value is `expected`; returns whether it did.
    @inlinable
    package func compareExchange(expected: Int, desired: Int) -> Bool {
        #if canImport(Darwin) || UNTANGLE_LOCKED_WORD
            return box.withLock { word in
                guard word == expected else { return false }
                word = desired
                return true
            }
        #else
            return atomic.compareExchange(expected: expected, desired: desired, ordering: .acquiringAndReleasing)
                .exchanged
        #endif
    }
}
