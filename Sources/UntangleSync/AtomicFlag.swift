import Synchronization

/// A shared Boolean that starts cleared and is set in one indivisible step: "has this happened yet?" and
/// "run this only once".
///
/// ```swift
/// let cancelled = AtomicFlag()
/// func cancel() {
///     guard cancelled.set() else { return }  // only the first caller gets past this line
///     cleanUp()
/// }
/// ```
///
/// ``set()`` reports whether *this* call changed the flag, so exactly one of any number of concurrent callers sees
/// `true`. That is what a check-then-set on a lock-per-access `Bool` property cannot give you: two threads can both
/// read `false` before either writes `true`.
///
/// **Thread safety:** every method may be called from any thread, concurrently; each is a single atomic step that
/// never blocks. ``runOnce(_:)`` calls its closure on the calling thread without any lock held.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class AtomicFlag: Sendable {
    private let storage = Atomic<Bool>(false)

    /// Creates a cleared flag.
    ///
    /// ```swift
    /// let finished = AtomicFlag()
    /// ```
    ///
    /// **Thread safety:** the new flag may be shared with any thread.
    public init() {}

    /// Whether the flag is set.
    ///
    /// ```swift
    /// if finished.isSet { return }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread; the answer may be stale as soon as it is returned, so
    /// never follow it with ``set()`` as a two-step "check then act": ``set()`` alone is the check and the act.
    public var isSet: Bool {
        storage.load(ordering: .sequentiallyConsistent)
    }

    /// Sets the flag; returns `true` if this call changed it (it was cleared), `false` if it was already set.
    ///
    /// ```swift
    /// if flag.set() { print("first") }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread; of any number of concurrent calls on a cleared flag,
    /// exactly one returns `true`.
    @discardableResult
    public func set() -> Bool {
        storage.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
    }

    /// Clears the flag; returns `true` if this call changed it (it was set).
    ///
    /// ```swift
    /// flag.clear()
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    @discardableResult
    public func clear() -> Bool {
        storage.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
    }

    /// Runs `body` if this call is the one that sets the flag; returns whether it ran.
    ///
    /// ```swift
    /// let setup = AtomicFlag()
    /// setup.runOnce { registerHandlers() }
    /// ```
    ///
    /// Unlike `dispatch_once` or a `static let`, a caller that loses the race does not wait for the winner's `body`
    /// to finish: it returns `false` at once, possibly while `body` is still running on another thread. Use it for
    /// "do this at most once" (cancel, finish, log a warning), not for "make sure this is initialized before I
    /// continue" (use a `static let` or a ``LockedBox`` for that).
    ///
    /// **Thread safety:** may be called from any thread; `body` runs at most once in the flag's life (until
    /// ``clear()``), on the calling thread, with no lock held.
    @discardableResult
    public func runOnce(_ body: () throws -> Void) rethrows -> Bool {
        guard set() else { return false }
        try body()
        return true
    }
}
