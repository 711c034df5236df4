// blocking-wait-for-callback: an asynchronous API made synchronous with a semaphore a callback signals, where the
// callback needs a thread the caller may hold, or in a getter; never in test code.

import UntangleLint
import XCTest

final class BlockingWaitForCallbackTests: XCTestCase {
    let rule = BlockingWaitForCallback.description

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
            final class Database {
                private let loaded = DispatchSemaphore(value: 0)
                func makeContext() -> Context {
                    loaded.wait()
                    return Context()
                }
                func load() {
                    container.loadPersistentStores { _, _ in self.loaded.signal() }
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["6:19 blocking-wait-for-callback", "13:16 blocking-wait-for-callback"])
    }

    /// aptabase's timer (the corpus's C092) waited for a `Task` in an `@objc` method, a selector run on the main
    /// thread; DuckDuckGo's Core Data stack waited for `loadPersistentStores` (C067, C091).
    func testWaitingForATaskInAnObjCMethodOrForCoreDataIsReported() {
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
                func migrate() -> Bool {
                    let group = DispatchGroup()
                    var done = false
                    group.enter()
                    context.perform { done = self.run(); group.leave() }
                    group.wait()
                    return done
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source), ["8:19 blocking-wait-for-callback", "15:15 blocking-wait-for-callback"])
    }

    /// DuckDuckGo's diagnostic report (a `UIActivityItemProvider`, which the system runs off the main thread) waits
    /// for cookies read in main-queue work: the caller is off the main thread by design. Not reported.
    func testWaitingForMainQueueWorkOutsideAGetterIsNotReported() {
        let source = """
            final class ReportSource: UIActivityItemProvider {
                func cookiesReport() -> String {
                    let group = DispatchGroup()
                    group.enter()
                    DispatchQueue.main.async { store.getAllCookies { _ in group.leave() } }
                    _ = group.wait(timeout: .now() + 10)
                    return ""
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// A network call bridged in a plain method (Pocket Casts' sync tasks, which run on their own operation queues):
    /// the callback needs no thread the caller holds.
    func testABridgeWhoseCallbackNeedsNoThreadOfTheCallerIsNotReported() {
        let source = """
            final class TokenHelper {
                func acquireToken() -> String? {
                    let semaphore = DispatchSemaphore(value: 0)
                    var token: String?
                    session.refresh { token = $0; semaphore.signal() }
                    semaphore.wait()
                    return token
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// Pocket Casts' sync task: a local semaphore of the same name waits for a `Task` in another method, not in this
    /// one.
    func testALocalSemaphoreSignalledByATaskOfAnotherMethodIsNotTakenForThisOne() {
        let source = """
            extension SyncTask {
                func importPodcast() {
                    let semaphore = DispatchSemaphore(value: 0)
                    manager.add(uuid, completion: { _ in semaphore.signal() })
                    _ = semaphore.wait(timeout: .distantFuture)
                }
                @objc func processBookmarks() {
                    let semaphore = DispatchSemaphore(value: 0)
                    Task {
                        await bookmarks.markAllSynced()
                        semaphore.signal()
                    }
                    semaphore.wait()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["13:19 blocking-wait-for-callback"])
    }

    /// swift-nio's demo and benchmarks wait for a `Task` on the main thread of a command-line tool, and Pocket Casts'
    /// sync operations on their own threads: a `Task` waited for outside an `@objc` method is not reported.
    func testATaskWaitedForOutsideAnObjCMethodIsNotReported() {
        let source = """
            func measure(_ bench: Benchmark) {
                let group = DispatchGroup()
                group.enter()
                Task {
                    try await bench.run()
                    group.leave()
                }
                group.wait()
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// Tests make callbacks synchronous on purpose, on threads they own.
    func testTestCodeIsNotReported() {
        let source = """
            import XCTest
            final class LoaderTests: XCTestCase {
                @objc func testLoads() {
                    let semaphore = DispatchSemaphore(value: 0)
                    Task { await loader.load(); semaphore.signal() }
                    semaphore.wait()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
        XCTAssertEqual(
            findings(rule, in: String(source.drop { $0 != "\n" }), path: "Tests/AppTests/LoaderTests.swift"), [])
        XCTAssertEqual(
            findings(rule, in: String(source.drop { $0 != "\n" }), path: "Sources/App/Loader.swift"),
            ["6:19 blocking-wait-for-callback"])
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
