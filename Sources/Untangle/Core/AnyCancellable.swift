import UntangleSync

/// A type-erasing cancellable object that executes a provided closure when canceled.
///
/// An `AnyCancellable` cancels automatically when it is deinitialized, so holding it keeps a subscription alive and
/// releasing it ends the subscription.
///
/// ```swift
/// var cancellables = Set<AnyCancellable>()
/// subject.sink { print($0) }.store(in: &cancellables)
/// ```
///
/// **Demand:** not applicable; cancelling ends the subscription it stands for.
/// **Thread safety:** `cancel()` may be called from any thread, concurrently, any number of times: the closure runs
/// exactly once, outside any lock, and is released right after. A `Set<AnyCancellable>` or array that holds them is
/// an ordinary value and is *not* thread-safe; use `CancelBag` from UntangleExtras for that.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    // @unchecked: the only state is the box below, whose closure is taken under its lock and run by one thread.
    // The closure is taken out of the box exactly once (by cancel or deinit), so it runs once and is then released.
    private let action: LockedBox<(() -> Void)?>

    /// Creates a cancellable that runs `cancel` once, on the first `cancel()` or on deinitialization.
    public init(_ cancel: @escaping () -> Void) {
        action = LockedBox(tracking: cancel)
    }

    /// Creates a cancellable that forwards the first `cancel()` (or deinitialization) to `canceller`.
    public init<C: Cancellable>(_ canceller: C) {
        action = LockedBox(tracking: canceller.cancel)
    }

    deinit {
        cancel()
    }

    /// Runs the cancellation closure the first time it is called; later calls do nothing.
    public func cancel() {
        guard
            let action = action.withCriticalSection({ action -> (() -> Void)? in
                defer { action = nil }
                return action
            })
        else { return }
        CalloutCheck.assertNoLockHeld("AnyCancellable running its cancel closure")
        action()
    }

    /// Hashes the identity of this instance.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// Two `AnyCancellable`s are equal only if they are the same instance.
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
        lhs === rhs
    }

    /// Appends this cancellable to the collection (not thread-safe; see the type's documentation).
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    /// Inserts this cancellable into the set (not thread-safe; see the type's documentation).
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }
}
