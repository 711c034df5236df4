// main-queue-sync-guarded: DispatchQueue.main.sync behind a Thread.isMainThread check, whose result the caller waits
// for.

import UntangleLint
import XCTest

final class MainQueueSyncGuardedTests: XCTestCase {
    let rule = MainQueueSyncGuarded.description

    /// DuckDuckGo's debug parameters and swift-dependencies' `mainSync` helper (the corpus of real fixes).
    func testGuardedMainSyncInAGetterOrAHelperIsReported() {
        let source = """
            final class Collector {
                var parameters: [String: String] {
                    if Thread.isMainThread { return read() }
                    return DispatchQueue.main.sync { read() }
                }
            }
            extension DispatchQueue {
                static func mainSync<R>(execute block: () -> R) -> R {
                    if Thread.isMainThread { return block() } else { return Self.main.sync(execute: block) }
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["4:35 main-queue-sync-guarded", "9:75 main-queue-sync-guarded"])
    }

    /// The unguarded form is main-queue-sync's; async waits for nothing.
    func testUnguardedMainSyncOrAsyncIsNotReported() {
        let source = """
            func f() { DispatchQueue.main.sync { g() } }
            func h() {
                if Thread.isMainThread { g() } else { DispatchQueue.main.async { g() } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// DevCycle's `variable(key:)` returned the value read on main; a value bound or assigned waits the same way.
    func testAGuardedMainSyncWhoseValueIsBoundOrAssignedIsReported() {
        let source = """
            func variable(key: String) -> Variable {
                if Thread.isMainThread { return lookUp(key) }
                let value = try DispatchQueue.main.sync { try lookUp(key) }
                cached = DispatchQueue.main.sync { lookUp(key) }
                return value
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["3:40 main-queue-sync-guarded", "4:33 main-queue-sync-guarded"])
    }

    /// Pocket's fixed `save()` (the corpus's C069) and Pocket Casts' timers: a side effect done on main, whose result
    /// nobody waits for. Whether the wait matters is up to the callers, elsewhere: not reported.
    func testAGuardedMainSyncForASideEffectIsNotReported() {
        let source = """
            func save() throws {
                if Thread.isMainThread {
                    try _save()
                } else {
                    try DispatchQueue.main.sync { try _save() }
                }
            }
            func startTimer() {
                if Thread.isMainThread { schedule() } else { DispatchQueue.main.sync { [weak self] in self?.schedule() } }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    func testTheRuleIsOnByDefault() {
        XCTAssertTrue(rule.enabledByDefault)
    }
}
