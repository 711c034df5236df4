import UntangleSync

/// Where a ``SerialEmitter`` keeps its state: the owner word and the ``EmitterStateMachine``, at addresses that do
/// not move while the emitter is used, and the lock that guards them.
///
/// ``EmitterBox`` is the ordinary one (a ``LockedBoxWithWord`` of its own, what ``Emitter`` uses).
/// `SubjectEmitterStorage` keeps a subject subscription's state inline in the subscription object, under a lock the
/// subject shares among its subscribers. Both reach the word and the machine through UntangleSync's
/// `InlineOwnedState` (the box over the `WordAndValue` in its tail), so their layout is one: the machine's address is
/// `withUnlockedValue`'s view, where the lock-free path reads the downstream (at offset 0).
///
/// ```swift
/// let emitter = SerialEmitter(storage: EmitterBox(EmitterStateMachine(downstream: s, policy: .unbounded)))
/// ```
///
/// **Thread safety:** ``withCriticalSection(_:)`` from any thread; the lock-free calls only under the emitter's
/// owner-word protocol (see ``SerialEmitter``).
@usableFromInline
package protocol EmitterStorage {
    associatedtype Downstream: Subscriber

    /// Runs `body` holding the lock, with the state machine and the owner word.
    func withCriticalSection<Result>(_ body: (inout EmitterStateMachine<Downstream>, WordAccess) -> Result) -> Result

    /// Replaces the owner word with `desired` if it is `expected`, without the lock.
    func compareExchangeWord(expected: Int, desired: Int) -> Bool

    /// Reads the owner word without the lock (acquiring). Only where `LockedBoxWithWord.hasLockFreeWord`.
    func loadWord() -> Int

    /// The state machine, without the lock, as UntangleSync's `UnlockedValue` (its address; the owner-word
    /// protocol decides what may be read).
    func withUnlockedValue<Result>(_ body: (UnlockedValue<EmitterStateMachine<Downstream>>) -> Result) -> Result
}

/// The ordinary ``EmitterStorage``: a ``LockedBoxWithWord`` of its own, counted by ``LiveObjects`` in debug builds.
///
/// **Thread safety:** as ``EmitterStorage``.
@usableFromInline
package struct EmitterBox<Downstream: Subscriber>: EmitterStorage {
    @usableFromInline let box: LockedBoxWithWord<EmitterStateMachine<Downstream>>

    @inlinable
    init(_ machine: consuming EmitterStateMachine<Downstream>) {
        box = LockedBoxWithWord(tracking: machine)
    }

    @inlinable
    package func withCriticalSection<Result>(
        _ body: (inout EmitterStateMachine<Downstream>, WordAccess) -> Result
    ) -> Result {
        box.withCriticalSection(body)
    }

    @inlinable
    package func compareExchangeWord(expected: Int, desired: Int) -> Bool {
        box.compareExchangeWord(expected: expected, desired: desired)
    }

    @inlinable
    package func loadWord() -> Int {
        box.loadWord()
    }

    @inlinable
    package func withUnlockedValue<Result>(
        _ body: (UnlockedValue<EmitterStateMachine<Downstream>>) -> Result
    ) -> Result {
        box.withUnlockedValue { body(UnlockedValue($0)) }
    }
}
