// sync-on-caller-queue: `.sync` onto a DispatchQueue parameter, in a function that does not check where it runs.

import UntangleLint
import XCTest

final class SyncOnCallerQueueTests: XCTestCase {
    let rule = SyncOnCallerQueue.description

    /// JARMourato's `Dispatch.sync(_:closure:)` before its fix (the corpus's C075), a barrier form, and a wrapper
    /// closure the helper builds (still the caller's queue), in a method and in an initializer.
    func testSyncOnAQueueParameterIsReported() {
        let source = """
            enum Dispatch {
                static func sync(_ queue: DispatchQueue, closure: @escaping () -> Void) {
                    queue.sync(execute: closure)
                }
                static func barrierSync(_ target: DispatchQueue, closure: () -> Void) {
                    target.sync(flags: .barrier, execute: closure)
                }
                func chained(on queue: DispatchQueue, closure: @escaping () -> Void) -> () -> Void {
                    let wrapper = { queue.sync(execute: closure) }
                    return wrapper
                }
            }
            final class Store {
                init(queue: DispatchQueue!) { queue.sync { load() } }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source),
            [
                "3:15 sync-on-caller-queue", "6:16 sync-on-caller-queue", "9:31 sync-on-caller-queue",
                "14:41 sync-on-caller-queue",
            ])
    }

    /// The fixes the real code made: check the main thread (C075's fix), or the queue's specific key, or assert
    /// where the caller runs.
    func testAFunctionThatChecksWhereItRunsIsNotReported() {
        let source = """
            func sync(_ queue: DispatchQueue, closure: () -> Void) {
                if queue == .main && Thread.isMainThread { closure() } else { queue.sync(execute: closure) }
            }
            func onQueue(_ queue: DispatchQueue, key: DispatchSpecificKey<Int>, closure: () -> Void) {
                if DispatchQueue.getSpecific(key: key) != nil { closure() } else { queue.sync(execute: closure) }
            }
            func checked(_ queue: DispatchQueue, closure: () -> Void) {
                dispatchPrecondition(condition: .notOnQueue(queue))
                queue.sync(execute: closure)
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// A queue the type owns (sync-on-current-queue and barrier-queue-reader-writer look at those), a parameter of
    /// another type, a closure's own parameter, `async`, and a local queue are not the caller's.
    func testQueuesThatAreNotTheCallersAreNotReported() {
        let source = """
            final class Cache {
                private let queue = DispatchQueue(label: "cache")
                func read() -> Int { queue.sync { 1 } }
                func readSelf() -> Int { self.queue.sync { 1 } }
                func withLock(_ queue: Locker) { queue.sync { } }
                func later(_ queue: DispatchQueue) { queue.async { } }
                func local() { let queue = DispatchQueue(label: "x"); queue.sync { } }
                func each(_ queues: [DispatchQueue]) { queues.forEach { (queue: DispatchQueue) in queue.sync { } } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// A test's helper drains a queue from the test's own thread.
    func testTestCodeIsNotChecked() {
        let source = """
            import XCTest
            func drain(_ queue: DispatchQueue) { queue.sync { } }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
