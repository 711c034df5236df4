/// An owner word and a value (a ``WordAndValue``) stored inline in an object, reached through their address: every
/// pointer operation on such a state lives here, so that the objects holding one (a subject's subscriptions) do no
/// pointer arithmetic of their own.
///
/// The object stores a `WordAndValue<Value>` as a stored property and makes this view of it with
/// ``init(inStoredPropertiesOf:afterReferences:)``: the property's address is the object's stored properties' start
/// (right after the object header) plus the bytes of the references stored before it, rounded up to its alignment.
/// That address does not move while the object lives, so the word can be changed atomically by threads that hold no
/// lock, and the value read in place by the thread the word's protocol admits.
///
/// ```swift
/// final class Cell: Base {               // `Base` stores one reference
///     var state = WordAndValue(word: 0, value: Machine())
///     var inline: InlineOwnedState<Machine> { InlineOwnedState(inStoredPropertiesOf: self, afterReferences: 1) }
/// }
/// let inline = cell.inline
/// if inline.claim(expected: 1, desired: 3) {            // the lock-free path: the word's protocol admits this thread
///     inline.withUnlockedValue { machine in /* read */ }
///     _ = inline.giveBack(expected: 3, desired: 1)
/// }
/// inline.withCriticalSection(lock: UnretainedLock(lock)) { machine, word in /* the locked path */ }
/// ```
///
/// The layout assumption (the property follows exactly those references) is the caller's; a test per holder checks
/// the computed address against Swift's own address of the property (`InlineOwnedStateTests` for the type itself,
/// `SubjectSubscriptionLayoutTests` for subject subscriptions), in every `swift test`, release builds included.
///
/// **Demand:** not applicable (a synchronization primitive, not a stream).
/// **Thread safety:** the word as ``RawWordAccess`` (atomic where ``LockedBoxWithWord/hasLockFreeWord``, otherwise
/// only under the lock); the value only inside ``withCriticalSection(lock:_:)``, or through
/// ``withUnlockedValue(_:)`` under the caller's word protocol. The object must outlive every use of the view.
@usableFromInline
package struct InlineOwnedState<Value> {
    /// The address of the `WordAndValue<Value>`.
    @usableFromInline let memory: UnsafeMutableRawPointer

    /// The `WordAndValue<Value>` that `object` stores right after `references` stored references (its superclasses'
    /// and its own stored properties before the state, each one reference wide).
    @inlinable
    package init(inStoredPropertiesOf object: AnyObject, afterReferences references: Int) {
        memory =
            _getUnsafePointerToStoredProperties(object)
            + MemoryLayout<WordAndValue<Value>>.offset(placedAfter: references * MemoryLayout<AnyObject>.size)
    }

    /// Whether this view is at `state`'s address (the check of the layout assumption, for a debug assert in the
    /// holder's init and for its layout test).
    @inlinable
    package func isAddress(of state: inout WordAndValue<Value>) -> Bool {
        withUnsafeMutablePointer(to: &state) { UnsafeMutableRawPointer($0) == memory }
    }

    /// The owner word.
    @inlinable
    package var word: RawWordAccess { RawWordAccess(memory) }

    /// The value's address (see ``WordAndValue/valueOffset``).
    @inlinable
    package var value: UnsafeMutablePointer<Value> {
        (memory + WordAndValue<Value>.valueOffset).assumingMemoryBound(to: Value.self)
    }

    /// Claims the word without the lock: replaces it with `desired` if it is `expected` (acquiring and releasing);
    /// returns whether it did. Only where ``LockedBoxWithWord/hasLockFreeWord``.
    @inlinable
    package func claim(expected: Int, desired: Int) -> Bool {
        word.compareExchange(expected: expected, desired: desired)
    }

    /// Gives a claimed word back without the lock (the same compare-exchange as ``claim(expected:desired:)``, named
    /// for the step of the protocol it is); returns whether it did.
    @inlinable
    package func giveBack(expected: Int, desired: Int) -> Bool {
        word.compareExchange(expected: expected, desired: desired)
    }

    /// Reads the word without the lock (acquiring). Only where ``LockedBoxWithWord/hasLockFreeWord``.
    @inlinable
    package func loadWord() -> Int {
        word.load()
    }

    /// A library critical section under `lock` (the lock that guards this state, possibly shared with others) over
    /// the value and the word.
    //
    // Performance: this and `withUnlockedValue` are not `rethrows`. Passed on from a non-throwing caller's parameter,
    // a `rethrows` body is converted to a throwing function type, and the optimizer then no longer inlined the
    // emitter's delivery closure into the subject's offer (measured: flatmap-just 281 → 295 instructions per value).
    // The subject's storage calls its closures itself, on `value` and `word` (see `SubjectEmitterStorage`).
    @inlinable
    package func withCriticalSection<Result>(lock: UnretainedLock, _ body: (inout Value, WordAccess) -> Result)
        -> Result
    {
        let value = self.value
        return lock.withCriticalSection { body(&value.pointee, RawWordAccess(memory)) }
    }

    /// Gives `body` the value's address without the lock; the caller's word protocol makes that safe.
    @inlinable
    package func withUnlockedValue<Result>(_ body: (UnsafeMutablePointer<Value>) -> Result) -> Result {
        body(value)
    }
}
