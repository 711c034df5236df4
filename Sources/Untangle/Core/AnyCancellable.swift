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
    // @unchecked: the state is one atomic word holding a retained reference to the cancel target (whose type is in
    // `payload`) or `closurePending` (the closure is in `payload`), and 0 once taken. It is taken exactly once (by
    // cancel or deinit) with an atomic exchange, so the cancellation runs once, on one thread, and what it held is
    // released right after. `payload` is written once, in init, before the word is published.
    //
    // Performance: no lock object and no box: the target is the cancellable itself when it is a class (as `Sink`
    // is; its `cancel()` is reached through its type, see `CancellableReference`), and a closure is kept inline.
    // Memory: 40 bytes (a 48-byte allocation) either way. The target's type (`any Cancellable.Type`, two words) and
    // the closure (two words) share one two-word slot, which of the two it holds being told by the state word: an
    // enum of the two takes 17 bytes (a closure has no spare bits for the case), and a class of 41 requested bytes
    // is a 64-byte allocation, as the separate slots were (56 bytes). The slot is plain words (`TwoWordBits`, in
    // UntangleSync, moves the closure's ownership in and out), so the deinit destroys nothing: it cancels, which
    // moves the closure out (and releases it after the call) or cancels the target. A boxed closure would have cost
    // `AnyCancellable { }` an allocation and 48 bytes more; this costs it nothing. The closure goes into the words
    // wrapped in a struct (`CancelAction`): a bare closure passed as a generic value is reabstracted, through a thunk
    // whose context is an allocation (measured: one more allocation and +415 instructions per `AnyCancellable { }`
    // made and cancelled, extras-cancelbag-1-thread); a struct's closure field keeps its own representation.
    @usableFromInline let target: AtomicWord
    @usableFromInline let payload: TwoWordBits.Words
    @inlinable static var closurePending: Int { 1 }

    /// Creates a cancellable that runs `cancel` once, on the first `cancel()` or on deinitialization.
    //
    // Inlinable, as the class target's initializer below: made in the caller, without a call.
    @inlinable
    public init(_ cancel: @escaping () -> Void) {
        payload = TwoWordBits.owning(CancelAction(run: cancel), as: CancelAction.self)
        target = AtomicWord(Self.closurePending)
    }

    /// Creates a cancellable that forwards the first `cancel()` (or deinitialization) to `canceller`.
    public init<C: Cancellable>(_ canceller: C) {
        let reference = CancellableReference(canceller)
        payload = TwoWordBits.owning(reference.type, as: (any Cancellable.Type).self)
        target = AtomicWord(RetainedBits.retaining(reference.object))
    }

    /// The same for a class: no dynamic type check (what `sink` and `assign` use).
    //
    // Inlinable: specialized in the caller, with the target's type known, instead of a generic call.
    @inlinable
    package init<C: Cancellable & AnyObject>(_ canceller: consuming C) {
        payload = TwoWordBits.owning(C.self, as: (any Cancellable.Type).self)
        target = AtomicWord(RetainedBits.moving(canceller))
    }

    deinit {
        cancel()
    }

    /// Runs the cancellation closure the first time it is called; later calls do nothing.
    public func cancel() {
        let bits = target.exchange(0)
        guard bits != 0 else { return }
        CalloutCheck.assertNoLockHeld("AnyCancellable running its cancel closure")
        if bits == Self.closurePending {
            // Moved out of the slot: released right after the call.
            TwoWordBits.moveOut(payload, as: CancelAction.self).run()
            return
        }
        // The retain taken in init goes with the call (released after the target's `cancel()`).
        CancellableReference.cancel(retained: bits, as: TwoWordBits.moveOut(payload, as: (any Cancellable.Type).self))
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

/// An `AnyCancellable`'s cancel closure, as it is kept in the cancellable's two-word slot (see `AnyCancellable`).
@usableFromInline
struct CancelAction {
    @usableFromInline let run: () -> Void

    @inlinable
    init(run: @escaping () -> Void) {
        self.run = run
    }
}
