import UntangleSync

/// An error with a code, for failures a test sends and expects back.
package struct TestError: Error, Equatable, CustomStringConvertible {
    package let code: Int
    package init(_ code: Int = 1) { self.code = code }
    package var description: String { "TestError(\(code))" }
}

/// A thread-safe counter.
package final class Counter: @unchecked Sendable {
    private let box = LockedBox(0)

    package init() {}

    @discardableResult
    package func increment() -> Int {
        box.withLock {
            $0 += 1
            return $0
        }
    }

    /// Adds `amount` (thread-safely).
    package func add(_ amount: Int) { box.withLock { $0 += amount } }

    package var value: Int { box.withLock { $0 } }
}

/// An object whose lifetime tests observe through a weak reference (e.g. something a closure captures).
package final class Token: @unchecked Sendable {
    package let id: Int
    package init(_ id: Int = 0) { self.id = id }
}

/// Whether `value` is `object` itself: `===` for what a state machine hands back typed as a protocol that is not
/// class-bound (`Cancellable`, `Subscription`).
///
/// ```swift
/// XCTAssertTrue(isSame(rearm.stale, timer))
/// ```
package func isSame(_ value: Any?, _ object: AnyObject) -> Bool {
    guard let value else { return false }
    return (value as AnyObject) === object
}

/// Closures that write their name into one log when run: a test tells which action a state machine handed back by
/// running it (`Debouncer`, `Throttler`).
///
/// ```swift
/// let actions = NamedActions()
/// XCTAssertEqual(actions.run(machine.fire(1)), ["b"])
/// ```
package final class NamedActions: @unchecked Sendable {
    private let log = LockedBox<[String]>([])

    package init() {}

    /// An action that logs `name` when run.
    package func action(_ name: String) -> () -> Void {
        { [log] in log.withLock { $0.append(name) } }
    }

    /// Runs `action` (if any) and returns the names it logged.
    package func run(_ action: (() -> Void)?) -> [String] {
        log.withLock { $0 = [] }
        action?()
        return log.withLock { $0 }
    }
}
