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
/// **Demand:** cancelling ends the subscription it stands for.
/// **Thread safety:** `cancel()` may be called from any thread, concurrently, any number of times: the closure runs
/// exactly once, outside any lock, and is released right after. A `Set<AnyCancellable>` or array that holds them is
/// an ordinary value and is *not* thread-safe; use `CancelBag` from UntangleExtras for that.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    // @unchecked: the state is one atomic word holding a retained reference to the cancel target (with the
    // target's type, written once in init) or `closurePending` (the closure is in `closure`), and 0 once taken.
    // It is taken exactly once (by cancel or deinit) with an atomic exchange, so the cancellation runs once, on one
    // thread, and what it held is released right after.
    //
    // Performance: no lock object and no box: the target is the cancellable itself when it is a class (as `Sink`
    // is; its `cancel()` is reached through `targetType`, see `CancellableReference`), and a closure is kept inline.
    // 64 bytes and one allocation either way, where a locked optional closure cost three allocations and a `pthread_mutex_t`.
    private let target: AtomicWord
    private let targetType: any Cancellable.Type
    // A cancellation closure, kept inline (no box object): `target` is then `closurePending`, and only the thread
    // that exchanges that value out reads and clears this.
    @exclusivity(unchecked) private var closure: (() -> Void)?
    private static let closurePending = 1

    /// Creates a cancellable that runs `cancel` once, on the first `cancel()` or on deinitialization.
    public init(_ cancel: @escaping () -> Void) {
        targetType = AnyCancellable.self  // unused while `target` is `closurePending`
        closure = cancel
        target = AtomicWord(Self.closurePending)
    }

    /// Creates a cancellable that forwards the first `cancel()` (or deinitialization) to `canceller`.
    public init<C: Cancellable>(_ canceller: C) {
        let reference = CancellableReference(canceller)
        targetType = reference.type
        target = AtomicWord(RetainedBits.retaining(reference.object))
    }

    /// The same for a class: no dynamic type check (what `sink` and `assign` use).
    @usableFromInline
    package init<C: Cancellable & AnyObject>(_ canceller: C) {
        targetType = C.self
        target = AtomicWord(RetainedBits.retaining(canceller))
    }

    deinit {
        cancel()
    }

    /// Runs the cancellation closure the first time it is called; later calls do nothing.
    public func cancel() {
        let bits = target.exchange(0)
        guard bits != 0 else { return }
        if bits == Self.closurePending {
            let action = closure.take()
            CalloutCheck.assertNoLockHeld("AnyCancellable running its cancel closure")
            action?()
            return
        }
        CalloutCheck.assertNoLockHeld("AnyCancellable running its cancel closure")
        // The retain taken in init goes with the call (released after the target's `cancel()`).
        CancellableReference.cancel(retained: bits, as: targetType)
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
