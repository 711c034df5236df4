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
}
