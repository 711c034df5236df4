import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// The owner's batches: values that other threads queue while one thread delivers are taken out of the queue
/// several at a time and delivered without the lock. These tests hold the owner inside a delivery while another
/// thread sends, then check that everything queued is delivered by the owner, in order, and that a cancel made
/// while the owner is inside a batch stops the batch before its next value.
final class EmitterBatchConcurrencyTests: XCTestCase {
    /// Runs `body` on a new thread; returns that thread's id (once it started) and a semaphore signalled when
    /// `body` returns.
    func onOwnerThread(_ body: @escaping @Sendable () -> Void) -> (LockedBox<pthread_t?>, DispatchSemaphore) {
        let done = DispatchSemaphore(value: 0)
        let thread = LockedBox<pthread_t?>(nil)
        Thread {
            thread.withLock { $0 = pthread_self() }
            body()
            done.signal()
        }.start()
        return (thread, done)
    }

    func testValuesQueuedByAnotherSenderAreAllDeliveredInOrderBeforeTheOwnerLetsGo() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = BlockingSubscriber(blockOn: [1])
        subject.subscribe(subscriber)
        let (owner, done) = onOwnerThread { subject.send(1) }
        XCTAssertEqual(subscriber.entered.wait(timeout: .now() + 30), .success)
        withWatchdog("sends while another thread delivers never wait for it", timeout: 30) {
            for value in 2...20 { subject.send(value) }
        }
        subscriber.release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(subscriber.events.withLock { $0 }, (1...20).map { .value($0) })
        let ownerThread = owner.withLock { $0! }
        XCTAssertEqual(
            subscriber.threads.withLock { $0 }, Array(repeating: ownerThread, count: 20),
            "the owner delivers everything that queued while it delivered")
        subscriber.takeSubscription().cancel()
    }

    /// Regression guard for the batch's cancel check: the owner delivers a batch without the lock, so a cancel made
    /// while it is inside one of the batch's values must stop it before the next one.
    func testCancelWhileTheOwnerIsInsideABatchStopsItBeforeTheNextValue() {
        let subject = PassthroughSubject<Int, Never>()
        var subscriber: BlockingSubscriber? = BlockingSubscriber(blockOn: [1, 3])
        subject.subscribe(subscriber!)
        // The cancel runs on the watchdog's thread while this one waits for it.
        nonisolated(unsafe) let subscription = subscriber!.takeSubscription()
        let entered = subscriber!.entered
        let release = subscriber!.release
        let events = subscriber!.events
        weak let weakSubscriber = subscriber
        subscriber = nil
        let (_, done) = onOwnerThread { subject.send(1) }
        XCTAssertEqual(entered.wait(timeout: .now() + 30), .success)
        // Queued behind 1; the owner takes 2...5 as one batch (6 stays queued) and blocks inside 3.
        for value in 2...6 { subject.send(value) }
        release.signal()
        XCTAssertEqual(entered.wait(timeout: .now() + 30), .success)
        withWatchdog("cancel() while the owner is inside a batch", timeout: 30) {
            subscription.cancel()
        }
        XCTAssertNotNil(weakSubscriber, "the owner is still inside receive(_:): it keeps the subscriber")
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(
            events.withLock { $0 }, [.value(1), .value(2), .value(3)], "nothing is delivered after cancel() returned")
        XCTAssertNil(weakSubscriber, "released once the delivery in progress returned")
    }
}
