import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// The emitter's lock-free path: with unlimited demand and nothing queued, a thread claims the owner word and
/// delivers without the lock. These tests stop a fast-path delivery in the middle (the subscriber blocks) and make
/// another thread signal meanwhile; whatever it signals must be delivered by the owner, in order, on the owner's
/// thread, and a cancel must not release the subscriber the owner is still using.
final class EmitterFastPathConcurrencyTests: XCTestCase {
    let ownerThread = LockedBox<pthread_t?>(nil)

    /// Starts `body` on a new thread (its id in `ownerThread`) and returns a semaphore signalled when it returns.
    func onOwnerThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let ownerThread = self.ownerThread
        Thread {
            ownerThread.withLock { $0 = pthread_self() }
            body()
            done.signal()
        }.start()
        return done
    }

    var owner: pthread_t { ownerThread.withLock { $0! } }

    /// A subject whose subscriber is inside a fast-path delivery of 1 on the owner thread (blocked until released).
    func ownerBlockedInsideADelivery() -> (PassthroughSubject<Int, Never>, BlockingSubscriber, DispatchSemaphore) {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = BlockingSubscriber(blockOn: [1])
        subject.subscribe(subscriber)
        let done = onOwnerThread { subject.send(1) }
        XCTAssertEqual(subscriber.entered.wait(timeout: .now() + 30), .success)
        return (subject, subscriber, done)
    }

    func testValueSentDuringAFastPathDeliveryIsDeliveredNextByTheOwner() {
        let (subject, subscriber, done) = ownerBlockedInsideADelivery()
        withWatchdog("send(2) while another thread delivers", timeout: 30) { subject.send(2) }
        subscriber.release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(subscriber.events.withLock { $0 }, [.value(1), .value(2)])
        XCTAssertEqual(subscriber.threads.withLock { $0 }, [owner, owner], "the owner delivers what queued")
        subscriber.takeSubscription().cancel()
    }

    func testCompletionSentDuringAFastPathDeliveryFollowsTheValue() {
        let (subject, subscriber, done) = ownerBlockedInsideADelivery()
        withWatchdog("send(completion:) while another thread delivers", timeout: 30) {
            subject.send(completion: .finished)
        }
        subject.send(3)
        subscriber.release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(subscriber.events.withLock { $0 }, [.value(1), .completion(.finished)])
        XCTAssertEqual(subscriber.threads.withLock { $0 }, [owner, owner])
    }

    /// Regression guard for the deferred release: the owner delivers to the subscriber in place (no retained copy),
    /// so a cancel made meanwhile must leave the subscriber to the owner, which drops it as soon as the delivery in
    /// progress returns.
    func testCancelDuringAFastPathDeliveryReleasesTheSubscriberWhenTheDeliveryReturns() {
        let subject = PassthroughSubject<Int, Never>()
        var subscriber: BlockingSubscriber? = BlockingSubscriber(blockOn: [1])
        subject.subscribe(subscriber!)
        // The cancel runs on the watchdog's thread while this one waits for it.
        nonisolated(unsafe) let subscription = subscriber!.takeSubscription()
        let entered = subscriber!.entered
        let release = subscriber!.release
        let events = subscriber!.events
        weak let weakSubscriber = subscriber
        subscriber = nil
        XCTAssertNotNil(weakSubscriber, "the subscription holds its subscriber")
        let done = onOwnerThread {
            subject.send(1)
            subject.send(2)
        }
        XCTAssertEqual(entered.wait(timeout: .now() + 30), .success)
        withWatchdog("cancel() while the owner delivers", timeout: 30) {
            subscription.cancel()
        }
        XCTAssertNotNil(weakSubscriber, "the owner is still inside receive(_:): it keeps the subscriber")
        subject.send(3)
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertNil(weakSubscriber, "released once the delivery in progress returned")
        XCTAssertEqual(events.withLock { $0 }, [.value(1)], "nothing is delivered after cancel() returned")
    }

    /// Many threads racing the fast path against each other and against bounded requests and cancels: every value
    /// is delivered once, one at a time, and nothing after cancel() returned.
    func testFastPathUnderContentionLosesNothingAndNeverOverlaps() {
        for _ in 0..<20 {
            let subject = PassthroughSubject<Int, Never>()
            let detector = OverlapDetector()
            let received = LockedBox(0)
            let cancellable = subject.sink { _ in
                detector.around { received.withLock { $0 += 1 } }
            }
            runConcurrently(threads: 4) { _ in
                for value in 0..<2_000 { subject.send(value) }
            }
            XCTAssertEqual(received.withLock { $0 }, 4 * 2_000)
            XCTAssertEqual(detector.overlaps, 0, "two threads were inside the subscriber at once")
            cancellable.cancel()
            subject.send(-1)
            XCTAssertEqual(received.withLock { $0 }, 4 * 2_000, "a value after cancel() returned")
        }
    }
}
