import UntangleSync

// Swift 6 isolation of user closures.
//
// A non-Sendable closure formed in an actor-isolated context (a `@MainActor` view model calling `sink`) is isolated
// to that actor: the compiler lets it touch the actor's state without `await`. Untangle's subjects are `Sendable`, so
// another thread may send into them, and the closure would then run on that thread: a data race the compiler cannot
// see, because the library stores the closure in `@unchecked Sendable` machinery. Apple's Combine is imported
// `@preconcurrency`, so Swift inserts its own dynamic check into such closures and the program stops; Untangle is a
// Swift 6 module, so Swift inserts nothing, and the library checks instead.
//
// The entry points take `isolation: (any Actor)? = #isolation`: the caller's isolation, evaluated at the call site,
// nil in nonisolated code (so no existing call changes meaning, and `isolation: nil` opts out). The check is made
// each time the closure is about to be called:
// - nil: one test of a nil word, nothing else (nonisolated code pays nothing measurable);
// - the main actor: the calling thread is compared with the main thread (a `pthread_self()` call and a compare,
//   about 1 ns), and off the main thread the program stops with a message naming the operator, the actor and the
//   fix. The main actor runs only on the main thread (its executor is the main queue, also drained by `RunLoop.main`),
//   so a value delivered on the main thread may touch main-actor state, and one delivered elsewhere may not;
// - another actor: Swift's `preconditionIsolated()` (about 90 ns, the runtime's executor check; its message names the
//   actor, the release-built runtime drops ours).
// The main thread's identity is recorded once per process, by the first subscription made on the main actor, after
// Swift's own check confirmed that the caller really is on it.

/// The actor a user closure was formed on, checked each time the library is about to call the closure.
///
/// ```swift
/// let check = IsolationCheck(isolation)   // at subscription, `isolation` defaulted to #isolation
/// check.check("sink")                      // before each call of the closure
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** immutable; `check` may be called from any thread and stops the program when that thread is not
/// on the actor.
@usableFromInline
package struct IsolationCheck: Sendable {
    /// The actor the closure was formed on; nil for a closure formed in nonisolated code (no check).
    @usableFromInline let actor: (any Actor)?
    /// What `check` compares: 0 for no actor (no check), 1 for an actor other than the main actor (Swift's check on
    /// each call), else the main thread's identity (`ThreadID.bits`, never 0 or 1: its low bit is clear).
    //
    // Performance: `check` reads only this word on its fast paths. Binding `actor` there would copy the existential,
    // a retain and release of the actor object per value (atomic, and shared by every thread: about 20 ns per check
    // on the main actor in a multi-threaded process).
    @usableFromInline let expected: Int

    /// No check: the closure was formed in nonisolated code (or its caller opted out with `isolation: nil`).
    @inlinable
    package static var none: IsolationCheck { IsolationCheck(nil) }

    /// Records `isolation`, the caller's `#isolation`.
    @inlinable
    package init(_ isolation: (any Actor)?) {
        guard let isolation else {
            actor = nil
            expected = 0
            return
        }
        actor = isolation
        let mainThread = IsolationCheck.mainThreadBits(for: isolation)
        expected = mainThread != 0 ? mainThread : 1
    }

    /// Combines the checks of two fused closures: the later one's actor if it has one, else the earlier one's.
    @inlinable
    package func then(_ later: IsolationCheck) -> IsolationCheck {
        later.expected == 0 ? self : later
    }

    /// Stops the program if the calling thread is not on the actor the closure was formed on. `operatorName` names
    /// the operator in the message (`"sink"`, `"map"`).
    @inlinable
    package func check(_ operatorName: StaticString) {
        let expected = self.expected
        if expected == 0 { return }
        if expected != 1, ThreadID.current.bits == expected { return }
        checkSlowly(operatorName)
    }

    /// `body` itself when there is nothing to check, else `body` preceded by the check: the check then lives in the
    /// closure, so an operator's per-value path has no check to make (and nothing more to carry) for a closure formed
    /// in nonisolated code.
    @inlinable
    package func wrapping<Argument, Result>(
        _ body: @escaping (Argument) -> Result, _ operatorName: StaticString
    ) -> (Argument) -> Result {
        guard isActive else { return body }
        return { argument in
            self.check(operatorName)
            return body(argument)
        }
    }

    /// The throwing form of `wrapping(_:_:)` for the try-operators (`tryMap`, `tryFilter`, `tryCatch`): `body`
    /// itself when there is nothing to check, else `body` preceded by the check.
    @inlinable
    package func wrapping<Argument, Result>(
        _ body: @escaping (Argument) throws -> Result, _ operatorName: StaticString
    ) -> (Argument) throws -> Result {
        guard isActive else { return body }
        return { argument in
            self.check(operatorName)
            return try body(argument)
        }
    }

    /// The two-argument form of `wrapping(_:_:)` (`scan`, `reduce`, `removeDuplicates(by:)`, `min(by:)`):
    /// `body` itself when there is nothing to check, else `body` preceded by the check.
    @inlinable
    package func wrapping<First, Second, Result>(
        _ body: @escaping (First, Second) -> Result, _ operatorName: StaticString
    ) -> (First, Second) -> Result {
        guard isActive else { return body }
        return { first, second in
            self.check(operatorName)
            return body(first, second)
        }
    }

    /// The throwing two-argument form (`tryScan`, `tryReduce`, `tryRemoveDuplicates(by:)`, `tryMin(by:)`): `body`
    /// itself when there is nothing to check, else `body` preceded by the check.
    @inlinable
    package func wrapping<First, Second, Result>(
        _ body: @escaping (First, Second) throws -> Result, _ operatorName: StaticString
    ) -> (First, Second) throws -> Result {
        guard isActive else { return body }
        return { first, second in
            self.check(operatorName)
            return try body(first, second)
        }
    }

    /// The form without arguments (`handleEvents(receiveCancel:)`): `body` itself when there is nothing to check, else
    /// `body` preceded by the check.
    @inlinable
    package func wrapping(_ body: @escaping () -> Void, _ operatorName: StaticString) -> () -> Void {
        guard isActive else { return body }
        return {
            self.check(operatorName)
            body()
        }
    }

    /// Whether there is anything to check (the closure was formed on an actor).
    @inlinable
    package var isActive: Bool { expected != 0 }

    /// The main thread's identity if the actor is the main actor, else 0.
    @inlinable
    package var mainThread: Int { expected == 1 ? 0 : expected }

    /// The main thread's identity if `actor` is the main actor, else 0.
    @usableFromInline
    static func mainThreadBits(for actor: any Actor) -> Int {
        guard actor === MainActor.shared else { return 0 }
        let known = mainThreadWord.load()
        if known != 0 { return known }
        // The first subscription made on the main actor: Swift's check confirms that this thread is the main actor's
        // (it stops the program otherwise) before its identity is recorded.
        MainActor.preconditionIsolated("Untangle: a subscription made on the main actor off the main thread")
        let current = ThreadID.current.bits
        _ = mainThreadWord.compareExchange(expected: 0, desired: current)
        return mainThreadWord.load()
    }

    @usableFromInline @inline(never)
    func checkSlowly(_ operatorName: StaticString) {
        guard let actor else { return }
        if expected != 1 {
            // The main actor, and this is not the main thread.
            fatalError(IsolationCheck.message(actor, operatorName))
        }
        actor.preconditionIsolated(IsolationCheck.message(actor, operatorName))
    }

    /// The message: what happened, where, and the fix.
    package static func message(_ actor: any Actor, _ operatorName: StaticString) -> String {
        let name = actor === MainActor.shared ? "MainActor" : String(describing: type(of: actor))
        let fix =
            actor === MainActor.shared
            ? "deliver on the main thread first: add `.receive(on: DispatchQueue.main)` (or `RunLoop.main`) before "
                + "`\(operatorName)`"
            : "deliver on the actor first (for example `for await value in publisher.values` inside the actor)"
        return "Untangle: the closure passed to `\(operatorName)` was formed on \(name) but is called on a thread that "
            + "is not \(name)'s: a data race on \(name)'s state. Fix: \(fix); or, if the closure touches no \(name) "
            + "state, subscribe from nonisolated code or pass `isolation: nil`."
    }
}

/// The main thread's identity (`ThreadID.bits`), recorded by the first subscription made on the main actor; 0 before.
@usableFromInline
let mainThreadWord = AtomicWord(0)
