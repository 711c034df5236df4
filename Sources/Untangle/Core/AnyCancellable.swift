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
    // @unchecked: the state is one atomic word holding a retained reference to the cancel target (0 once taken)
    // and the target's type, written once in init. The reference is taken out exactly once (by cancel or deinit)
    // with an atomic exchange, so the target is cancelled once, by one thread, and released right after.
    //
    // Performance: no lock and no closure per instance (the target is the cancellable itself when it is a class,
    // as `Sink` is, and its `cancel()` is reached by opening `targetType`): 48 bytes and one allocation, where a
    // locked optional closure costs three allocations and a `pthread_mutex_t`.
    private let target: AtomicWord
    private let targetType: any Cancellable.Type

    /// Creates a cancellable that runs `cancel` once, on the first `cancel()` or on deinitialization.
    public init(_ cancel: @escaping () -> Void) {
        targetType = CancelClosure.self
        target = AtomicWord(Self.retainedBits(CancelClosure(cancel)))
    }

    /// Creates a cancellable that forwards the first `cancel()` (or deinitialization) to `canceller`.
    public init<C: Cancellable>(_ canceller: C) {
        if C.self is AnyClass {
            targetType = C.self
            target = AtomicWord(Self.retainedBits(unsafeBitCast(canceller, to: AnyObject.self)))
        } else {
            targetType = CancellableBox<C>.self
            target = AtomicWord(Self.retainedBits(CancellableBox(canceller)))
        }
    }

    /// The same for a class: no dynamic type check (what `sink` and `assign` use).
    @usableFromInline
    package init<C: Cancellable & AnyObject>(_ canceller: C) {
        targetType = C.self
        target = AtomicWord(Self.retainedBits(canceller))
    }

    private static func retainedBits(_ object: AnyObject) -> Int {
        Int(bitPattern: Unmanaged.passRetained(object).toOpaque())
    }

    deinit {
        cancel()
    }

    /// Runs the cancellation closure the first time it is called; later calls do nothing.
    public func cancel() {
        let bits = target.exchange(0)
        guard bits != 0 else { return }
        let object = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeRetainedValue()
        CalloutCheck.assertNoLockHeld("AnyCancellable running its cancel closure")
        func cancel<Target: Cancellable>(_: Target.Type) {
            // `Target` is a class type (see init), so the reference is the value.
            unsafeBitCast(object, to: Target.self).cancel()
        }
        cancel(targetType)
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

/// The target of an `AnyCancellable` made from a closure.
private final class CancelClosure: Cancellable {
    let action: () -> Void

    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    func cancel() {
        action()
    }
}

/// The target of an `AnyCancellable` made from a cancellable value type.
private final class CancellableBox<Base: Cancellable>: Cancellable {
    let base: Base

    init(_ base: Base) {
        self.base = base
    }

    func cancel() {
        base.cancel()
    }
}
