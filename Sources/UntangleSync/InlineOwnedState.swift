/// An owner word and a value (a ``WordAndValue``) at a fixed address, reached through that address: the one type that
/// does the pointer work on an owner word and the value it guards (the word-and-value layout is computed here and in
/// ``WordAndValue/valueOffset``, nowhere else). Two kinds of holder use it:
/// - an object that stores a `WordAndValue<Value>` as a stored property (a subject's subscriptions), viewed with
///   ``init(inStoredPropertiesOf:afterReferences:)``: the property's address is the object's stored properties' start
///   (right after the object header) plus the bytes of the references stored before it, rounded up to its alignment;
/// - ``LockedBoxWithWord``, whose heap object keeps one `WordAndValue<Value>` in its tail, viewed with
///   ``init(at:)``.
///
/// That address does not move while the holder lives, so the word can be changed atomically by threads that hold no
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
///     _ = inline.compareExchangeWord(expected: 3, desired: 1)     // give the word back
/// }
/// inline.withCriticalSection(lock: UnretainedLock(lock)) { machine, word in /* the locked path */ }
/// ```
///
/// The layout assumption of an inline holder (the property follows exactly those references) is the caller's; a test
/// per holder checks the computed address against Swift's own address of the property (`InlineOwnedStateTests` for
/// the type itself, `SubjectSubscriptionLayoutTests` for subject subscriptions), and `InlineOwnedStateTests` checks
/// the box's value address too, in every `swift test`, release builds included.
///
/// **Thread safety:** the word as ``RawWordAccess`` (atomic where ``LockedBoxWithWord/hasLockFreeWord``, otherwise
/// only under the lock); the value only inside ``withCriticalSection(lock:_:)``, or through
/// ``withUnlockedValue(_:)`` under the caller's word protocol. The holder must outlive every use of the view.
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

    /// The `WordAndValue<Value>` at `state` (initialized, and at a fixed address while the view is used).
    @inlinable
    package init(at state: UnsafeMutablePointer<WordAndValue<Value>>) {
        memory = UnsafeMutableRawPointer(state)
    }

    /// The state at `memory`, which holds a `WordAndValue<Value>` (named by its raw address: forming a pointer typed
    /// `WordAndValue<Value>` in unspecialized code can cost a runtime lookup of that type, see
    /// `WordLockStorage.tail`).
    @inlinable
    package init(atRawAddress memory: UnsafeMutableRawPointer) {
        self.memory = memory
    }

    /// Whether this view is at `state`'s address (the check of the layout assumption, for a debug assert in the
    /// holder's init and for its layout test).
    @inlinable
    package func isAddress(of state: inout WordAndValue<Value>) -> Bool {
        withUnsafeMutablePointer(to: &state) { UnsafeMutableRawPointer($0) == memory }
    }

    /// Whether this view is at `holder`'s address with its value at `path`: the same check for a holder laid out as a
    /// `WordAndValue<Value>` (a word, then the value at ``WordAndValue/valueOffset``) without being one by type.
    @inlinable
    package func isAddress<Holder>(of holder: inout Holder, valueAt path: PartialKeyPath<Holder>) -> Bool {
        withUnsafeMutablePointer(to: &holder) { UnsafeMutableRawPointer($0) == memory }
            && MemoryLayout<Holder>.offset(of: path) == WordAndValue<Value>.valueOffset
    }

    /// The owner word.
    @inlinable
    package var word: RawWordAccess { RawWordAccess(memory) }

    /// The value's address (see ``WordAndValue/valueOffset``).
    @inlinable
    package var value: UnsafeMutablePointer<Value> {
        (memory + WordAndValue<Value>.valueOffset).assumingMemoryBound(to: Value.self)
    }

    /// Replaces the word with `desired` if it is `expected`, without the lock (acquiring and releasing); returns
    /// whether it did. Only where ``LockedBoxWithWord/hasLockFreeWord``. Every lock-free step of an owner-word
    /// protocol is this one compare-exchange: claiming the word and giving it back.
    @inlinable
    package func compareExchangeWord(expected: Int, desired: Int) -> Bool {
        word.compareExchange(expected: expected, desired: desired)
    }

    /// ``compareExchangeWord(expected:desired:)`` under the name of the step that makes the calling thread the
    /// word's owner: a subject subscription's storage says `claim` where it takes the word (the same function
    /// serves it for giving the word back, as the emitter decides which step it is).
    @inlinable
    package func claim(expected: Int, desired: Int) -> Bool {
        compareExchangeWord(expected: expected, desired: desired)
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
