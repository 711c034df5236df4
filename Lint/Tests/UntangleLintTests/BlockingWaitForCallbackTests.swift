// blocking-wait-for-callback (off by default): an asynchronous API made synchronous with a semaphore a callback
// signals.

import UntangleLint
import XCTest

final class BlockingWaitForCallbackTests: XCTestCase {
    let rule = BlockingWaitForCallback.description
    /// A stored gate: `makeContext()` waits for what `load()`'s callback signals.
    let database = """
        final class Database {
            private let loaded = DispatchSemaphore(value: 0)
            func makeContext() -> Context {
                loaded.wait()
                return Context()
            }
            func load() {
                container.loadStores { _ in self.loaded.signal() }
            }
        }
        """

    func testWaitingForACallbackIsReported() {
        let source = """
            struct Loader {
                var accounts: [String] {
                    let semaphore = DispatchSemaphore(value: 0)
                    var result: [String] = []
                    vault.accounts { result = $0; semaphore.signal() }
                    semaphore.wait()
                    return result
                }
            }

            """ + database
        // The stored gate (`loaded`, signalled by `load()`'s callback) is blocking-wait-for-async-work's, on by default.
        XCTAssertEqual(findings(rule, in: source), ["6:19 blocking-wait-for-callback"])
        XCTAssertEqual(
            findings(BlockingWaitForAsyncWork.description, in: source), ["13:16 blocking-wait-for-async-work"])
    }

    func testAStoredGateInATestFileIsLeftToThisRule() {
        let source = "import XCTest\n" + database
        XCTAssertEqual(findings(rule, in: source), ["5:16 blocking-wait-for-callback"])
        XCTAssertEqual(findings(BlockingWaitForAsyncWork.description, in: source), [])
    }

    func testWaitsWithoutACallbackOrOffTheMainThreadAreNotReported() {
        let source = """
            final class Pool {
                let slots = DispatchSemaphore(value: 4)
                func run() {
                    slots.wait()
                    work()
                    slots.signal()
                }
                func fetch() {
                    DispatchQueue.global().async {
                        let done = DispatchSemaphore(value: 0)
                        api.call { done.signal() }
                        done.wait()
                    }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
