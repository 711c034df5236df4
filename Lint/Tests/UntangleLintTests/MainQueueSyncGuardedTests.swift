// main-queue-sync-guarded (off by default): DispatchQueue.main.sync behind a Thread.isMainThread check.

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

    func testTheRuleIsOffByDefault() {
        XCTAssertFalse(rule.enabledByDefault)
    }
}
