// callout-under-lock: a subscription or subscriber that calls its downstream or upstream while holding its lock.

import UntangleLint
import XCTest

final class CalloutUnderLockTests: XCTestCase {
    let rule = CalloutUnderLock.description

    func testCallsWhileTheLockIsHeldAreReported() {
        let source = """
            final class Buffer {
                func send(_ value: Int) -> Subscribers.Demand {
                    lock.lock()
                    defer { lock.unlock() }
                    return subscriber.receive(value)
                }
                func request(_ demand: Subscribers.Demand) {
                    lock.sync { upstream?.request(demand) }
                }
                func cancel() {
                    stateLock.withLock {
                        if let subscription { subscription.cancel() }
                    }
                }
                func forward(_ event: Event<Int>) {
                    mutex.lock()
                    observer.on(event)
                    mutex.unlock()
                }
            }
            """
        XCTAssertEqual(
            findings(rule, in: source),
            [
                "5:27 callout-under-lock", "8:31 callout-under-lock", "12:48 callout-under-lock",
                "17:18 callout-under-lock",
            ])
    }

    func testCallsAfterUnlockingOrOnAQueueAreNotReported() {
        let source = """
            final class Buffer {
                func send(_ value: Int) -> Subscribers.Demand {
                    lock.lock()
                    guard let subscriber else {
                        lock.unlock()
                        return .none
                    }
                    lock.unlock()
                    return subscriber.receive(value)
                }
                func request(_ demand: Subscribers.Demand) {
                    let upstream = lock.sync { self.upstream }
                    upstream?.request(demand)
                    queue.sync { subscriber.receive(1) }
                }
                func cancel() {
                    lock.lock()
                    if done {
                        lock.unlock()
                        subscription?.cancel()
                        return
                    }
                    lock.unlock()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), [])
    }

    /// GRDB's observations, OpenCombine's `Zip` and its `FlatMap`'s `outerLock` call out under a recursive lock,
    /// designed for the re-entrant call; `FlatMap`'s plain lock held while cancelling its children is reported.
    func testCallsUnderALockTheFileDeclaresRecursiveAreNotReported() {
        let source = """
            final class Observer {
                private var lock = NSRecursiveLock()  // Allow re-entrancy
                private let outerLock = UnfairRecursiveLock.allocate()
                private let stateLock = UnfairLock.allocate()
                func receive(_ value: Int) {
                    lock.synchronized { _ = downstream.receive(value) }
                    outerLock.lock()
                    outerSubscription?.request(.max(1))
                    outerLock.unlock()
                    stateLock.lock()
                    for subscription in children { subscription.cancel() }
                    stateLock.unlock()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["11:53 callout-under-lock"])
    }

    /// OpenCombine's `Retry` unlocks to resubscribe and locks again in a loop: the statement after the loop still
    /// holds the lock, and a call after the final unlock does not.
    func testALockTakenAgainInALoopIsStillHeldAfterIt() {
        let source = """
            final class Inner {
                func receive(completion: Completion) {
                    lock.lock()
                    if failed {
                        repeat {
                            lock.unlock()
                            resubscribe()
                            lock.lock()
                        } while needsSubscribe
                    }
                    downstream.receive(completion: completion)
                    lock.unlock()
                    subscription.cancel()
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source), ["11:20 callout-under-lock"])
    }

    /// Test helpers serialize their events under a lock on purpose.
    func testTestCodeIsNotReported() {
        let source = """
            final class HotObservable {
                func on(_ event: Event<Int>) {
                    lock.lock()
                    defer { lock.unlock() }
                    observer.on(event)
                }
            }
            """
        XCTAssertEqual(findings(rule, in: source, path: "Tests/RxTests/HotObservable.swift"), [])
        XCTAssertEqual(findings(rule, in: source, path: "Sources/Rx/HotObservable.swift"), ["5:18 callout-under-lock"])
    }

    func testTheRuleIsOnByDefault() {
        XCTAssertTrue(rule.enabledByDefault)
    }
}
