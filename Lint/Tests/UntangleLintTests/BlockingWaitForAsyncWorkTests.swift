// blocking-wait-for-async-work: a synchronous method that blocks its caller until a Task or another method's
// callback signals.

import UntangleLint
import XCTest

final class BlockingWaitForAsyncWorkTests: XCTestCase {
    let rule = BlockingWaitForAsyncWork.description

    /// aptabase's `flushSync()`, called by a main-run-loop timer, blocked the main thread on a `Task`.
    func testAMethodWaitingForATaskIsReported() {
        let source = """
            final class Client {
                @objc private func flushSync() {
                    let semaphore = DispatchSemaphore(value: 0)
                    Task {
                        await self.flush()
                        semaphore.signal()
                    }
                    semaphore.wait()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["8:19 blocking-wait-for-async-work"])
    }

    /// DuckDuckGo's Core Data stacks: `makeContext()` waited for the store that `loadStore()`'s callback loads.
    func testAMethodWaitingBehindAnotherMethodsCallbackIsReported() {
        let source = """
            public class Database {
                private let semaphore = DispatchSemaphore(value: 0)
                public func loadStore() {
                    container.loadPersistentStores { _, _ in
                        context.perform { self.semaphore.signal() }
                    }
                }
                public func makeContext() -> NSManagedObjectContext {
                    semaphore.wait()
                    return NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["9:19 blocking-wait-for-async-work"])
    }

    func testWaitsThatAreNotABridgeOrAGateAreNotReported() {
        let source = """
            final class Pool {
                var accounts: [String] {
                    let done = DispatchSemaphore(value: 0)
                    vault.accounts { _ in done.signal() }
                    done.wait()
                    return []
                }
                func fetch() async {
                    let done = DispatchSemaphore(value: 0)
                    Task { done.signal() }
                    done.wait()
                }
            }
            final class ScreenViewController: UIViewController {
                func reload() {
                    let done = DispatchSemaphore(value: 0)
                    Task { done.signal() }
                    done.wait()
                }
            }
            enum Concurrently {
                static func run() -> Bool {
                    let done = DispatchGroup()
                    done.enter()
                    Thread { done.leave() }.start()
                    return done.wait(timeout: .now() + 1) == .success
                }
                static func watchdog() -> Bool {
                    let done = DispatchSemaphore(value: 0)
                    Thread { done.signal() }.start()
                    return done.wait(timeout: .now() + 1) == .success
                }
            }
            func measure() {
                let group = DispatchGroup()
                group.enter()
                Task { group.leave() }
                group.wait()
            }
            """
        // A same-method callback is blocking-wait-for-callback's; an async function is blocking-wait-in-pool's; a
        // controller's wait is blocking-wait-on-main's; a free function is a tool's own main thread;
        // two locals of the same name in two methods are two semaphores, not a gate.
        XCTAssertEqual(findings(rule, in: source), [])
    }

    func testTestFilesAreNotReported() {
        let source = """
            import XCTest
            final class ClientTests: XCTestCase {
                func bridge() {
                    let semaphore = DispatchSemaphore(value: 0)
                    Task { semaphore.signal() }
                    semaphore.wait()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
