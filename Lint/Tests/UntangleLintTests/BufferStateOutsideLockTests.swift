// buffer-state-outside-lock: a demand buffer or cancellable that locks its state in one method and mutates it without
// the lock in another.

import UntangleLint
import XCTest

final class BufferStateOutsideLockTests: XCTestCase {
    let rule = BufferStateOutsideLock.description

    /// CombineExt's DemandBuffer and Verge's VergeAnyCancellable (the corpus of real fixes): state the type locks in one
    /// method, mutated without the lock in another.
    func testBufferAndCancellableStateMutatedOutsideTheLockIsReported() {
        let source = """
            final class DemandBuffer<S: Subscriber> {
                private let lock = NSRecursiveLock()
                private var buffer = [S.Input]()
                func buffer(value: S.Input) -> Subscribers.Demand {
                    buffer.append(value)
                    return flush()
                }
                private func flush() -> Subscribers.Demand {
                    lock.lock()
                    defer { lock.unlock() }
                    while !buffer.isEmpty { _ = subscriber.receive(buffer.remove(at: 0)) }
                    return .none
                }
            }
            public final class AnyTokenCancellable: Hashable {
                private let lock = UnfairLock()
                private var actions: [() -> Void] = []
                public func insert(_ action: @escaping () -> Void) { actions.append(action) }
                public func cancel() {
                    lock.lock()
                    defer { lock.unlock() }
                    actions.forEach { $0() }
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["5:9 buffer-state-outside-lock", "18:58 buffer-state-outside-lock"])
        // Custom subscriptions are the off-by-default rule's; the plumbing is this one's alone.
        XCTAssertEqual(findings(SubscriptionStateOutsideLock.description, in: source), [])
    }

    /// Reads outside the lock, a method that runs under its caller's lock, and a type that owns no lock.
    func testReadsMethodsUnderTheCallersLockAndUnlockedTypesAreNotReported() {
        let source = """
            final class DemandBuffer<S: Subscriber> {
                private let lock = NSLock()
                private var buffer = [S.Input]()
                var isEmpty: Bool { buffer.isEmpty }
                func drain() {
                    lock.lock()
                    buffer.removeAll()
                    lock.unlock()
                }
                private func appendLocked(_ value: S.Input) { buffer.append(value) }
                private func append(_ value: S.Input) {
                    lock.assertOwner()
                    buffer.append(value)
                }
            }
            final class TokenCancellable {
                private var actions: [() -> Void] = []
                func insert(_ action: @escaping () -> Void) { actions.append(action) }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
