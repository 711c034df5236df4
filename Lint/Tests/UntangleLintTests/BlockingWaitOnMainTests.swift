// blocking-wait-on-main: a semaphore or group wait in a main-bound type or in main-queue work.

import UntangleLint
import XCTest

final class BlockingWaitOnMainTests: XCTestCase {
    let rule = BlockingWaitOnMain.description

    func testWaitsInAControllerOrOnTheMainQueueAreReported() {
        let source = """
            final class SettingsViewController: UIViewController {
                let semaphore = DispatchSemaphore(value: 0)
                override func viewDidLoad() {
                    store.load { self.semaphore.signal() }
                    semaphore.wait()
                }
            }
            final class Store {
                let group = DispatchGroup()
                func refresh() {
                    DispatchQueue.main.async { self.group.wait() }
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["5:19 blocking-wait-on-main", "11:47 blocking-wait-on-main"])
    }

    func testWaitsOffTheMainThreadOrAwaitedAreNotReported() {
        let source = """
            final class SettingsViewController: UIViewController {
                let semaphore = DispatchSemaphore(value: 0)
                func load() {
                    DispatchQueue.global().async { self.semaphore.wait() }
                    Task.detached { self.semaphore.wait() }
                    work.async { self.semaphore.wait() }
                }
                func asyncLoad() async {
                    await asyncSemaphore.wait()
                }
            }
            final class Store {
                let semaphore = DispatchSemaphore(value: 0)
                func read() { semaphore.wait() }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }
}
