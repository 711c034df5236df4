import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

/// RxSwift's MainScheduler rule: in line on the main queue when nothing scheduled is queued or running, otherwise
/// queued on the main queue in order. XCTest runs these tests on the main thread, outside any queue block, where
/// `DispatchQueue.getSpecific` reports the main queue (as RxSwift's check does); `wait(for:)` runs the main queue.
final class MainThreadSchedulerTests: XCTestCase {
    let scheduler = MainThreadScheduler.shared

    func testRunsInLineOnTheMainQueueWhenNothingIsQueued() {
        drainMainQueue()
        XCTAssertTrue(MainThreadScheduler.isOnMainQueue)
        var ran = false
        scheduler.schedule { ran = true }
        XCTAssertTrue(ran, "on the main queue with nothing queued ahead, the action runs before schedule returns")
    }

    func testAnActionScheduledFromAnotherThreadRunsOnTheMainQueueLater() {
        drainMainQueue()
        let log = LockedBox<[String]>([])
        let done = expectation(description: "ran")
        DispatchQueue.global().async {
            XCTAssertFalse(MainThreadScheduler.isOnMainQueue)
            MainThreadScheduler.shared.schedule {
                log.withLock { $0.append("main:\(MainThreadScheduler.isOnMainQueue) thread:\(Thread.isMainThread)") }
                done.fulfill()
            }
            log.withLock { $0.append("scheduled") }
        }
        wait(for: [done], timeout: 30)
        // Run on the main thread, not in line on the scheduling thread; which of the two entries comes first is a
        // race (XCTest's wait runs the main queue while the other thread appends "scheduled").
        XCTAssertEqual(Set(log.withLock { $0 }), ["scheduled", "main:true thread:true"])
    }

    // Regression: an action scheduled on the main queue while an earlier one waits on the queue must wait behind
    // it (running it in line would overtake the earlier one).
    func testAnActionDoesNotOvertakeOneQueuedAheadOfIt() {
        drainMainQueue()
        let log = LockedBox<[String]>([])
        DispatchQueue.global().sync {
            MainThreadScheduler.shared.schedule { log.withLock { $0.append("queued first") } }
        }
        scheduler.schedule { log.withLock { $0.append("scheduled on main second") } }
        XCTAssertEqual(log.withLock { $0 }, [], "the second action waits for the first")
        drainMainQueue()
        XCTAssertEqual(log.withLock { $0 }, ["queued first", "scheduled on main second"])
        var ranInLine = false
        scheduler.schedule { ranInLine = true }
        XCTAssertTrue(ranInLine, "once the queue is drained, the scheduler runs in line again")
    }

    // A chain of drivers hops twice (RxSwift's `driver.map { }` does not): the inner hop, scheduled from inside the
    // outer one with nothing waiting, runs in line so the chain stays in line (RxSwift would defer a nested action).
    func testAnActionScheduledFromARunningActionWithNothingWaitingRunsInLine() {
        drainMainQueue()
        var log: [String] = []
        scheduler.schedule {
            log.append("outer begins")
            MainThreadScheduler.shared.schedule { log.append("inner") }
            log.append("outer ends")
        }
        XCTAssertEqual(log, ["outer begins", "inner", "outer ends"])
    }

    // Regression: a nested action must still wait behind one queued before it.
    func testANestedActionWaitsBehindAnActionQueuedBeforeIt() {
        drainMainQueue()
        let log = LockedBox<[String]>([])
        scheduler.schedule {
            log.withLock { $0.append("outer") }
            DispatchQueue.global().sync {
                MainThreadScheduler.shared.schedule { log.withLock { $0.append("queued from another thread") } }
            }
            MainThreadScheduler.shared.schedule { log.withLock { $0.append("nested") } }
        }
        XCTAssertEqual(log.withLock { $0 }, ["outer"])
        drainMainQueue()
        XCTAssertEqual(log.withLock { $0 }, ["outer", "queued from another thread", "nested"])
    }

    func testDriversChainedOnAMainQueueValueDeliverInLine() {
        drainMainQueue()
        let relay = CurrentValueRelay("a")
        var got: [String] = []
        let cancellable = relay.asDriver().map { $0.uppercased() }.asDriver().drive { got.append($0) }
        XCTAssertEqual(got, ["A"])
        relay.accept("b")
        XCTAssertEqual(got, ["A", "B"])
        withExtendedLifetime(cancellable) {}
    }

    // ReactiveX/RxSwift 6a590c2b (issue 2140): MainScheduler dropped the disposable of an action it had queued, so
    // what that action started (a subscription subscribeOn made on main for another thread) could not be disposed.
    // A subscription queued on main from another thread, then cancelled from another thread, reaches its upstream's
    // cancel on the main queue, once, and nothing is delivered after it.
    func testASubscriptionQueuedFromAnotherThreadCanBeCancelledFromAnotherThread() {
        let upstream = ManualPublisher<Int, Never>(recordsSubscriptions: true)
        let subscribedOnMain = expectation(description: "subscribed on the main queue")
        let cancelledOnMain = expectation(description: "the cancel reached the upstream on the main queue")
        let onMain = LockedBox<[Bool]>([])
        // Subscribed from another thread on purpose: the subscription is queued on the main queue, the path the fix is
        // about.
        nonisolated(unsafe) let publisher =
            upstream
            .handleEvents(
                receiveSubscription: { _ in
                    onMain.withLock { $0.append(Thread.isMainThread) }
                    subscribedOnMain.fulfill()
                },
                receiveCancel: {
                    onMain.withLock { $0.append(Thread.isMainThread) }
                    cancelledOnMain.fulfill()
                }
            )
            .subscribe(on: scheduler)
        let recorder = Recorder<Int, Never>()
        DispatchQueue.global().async { publisher.subscribe(recorder) }
        wait(for: [subscribedOnMain], timeout: 30)
        recorder.waitForSubscription()
        DispatchQueue.global().async { recorder.cancel() }
        wait(for: [cancelledOnMain], timeout: 30)
        XCTAssertEqual(onMain.withLock { $0 }, [true, true])
        XCTAssertEqual(upstream.history.filter { $0 == .cancel }.count, 1)
        upstream.send(1)
        XCTAssertEqual(recorder.values, [])
    }

    // ReactiveX/RxSwift bac86346 (issue 1778): observeOn delivered the events it had already queued on a serial
    // scheduler after the subscription was disposed. Values and a completion queued on the main queue from another
    // thread, then cancelled on main before the queue runs them, are never delivered.
    func testValuesQueuedOnMainAreNotDeliveredAfterACancel() {
        drainMainQueue()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        subject.receive(on: scheduler).subscribe(recorder)
        let sent = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            sent.signal()
        }
        XCTAssertEqual(sent.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(recorder.values, [], "queued on the main queue, which has not run yet")
        recorder.cancel()
        drainMainQueue()
        XCTAssertEqual(recorder.values, [])
        XCTAssertEqual(recorder.completions, [])
    }

    func testDelayedActionsRunOnTheMainQueueAfterTheirDate() {
        let done = expectation(description: "ran")
        let start = scheduler.now
        var ranAt: DispatchQueue.SchedulerTimeType?
        scheduler.schedule(after: start.advanced(by: .milliseconds(20))) {
            XCTAssertTrue(MainThreadScheduler.isOnMainQueue)
            ranAt = MainThreadScheduler.shared.now
            done.fulfill()
        }
        XCTAssertNil(ranAt, "a delayed action never runs in line")
        wait(for: [done], timeout: 30)
        XCTAssertGreaterThanOrEqual(ranAt!, start.advanced(by: .milliseconds(20)))
    }

    func testReceiveOnDeliversInLineOnMainAndHopsFromOtherThreads() {
        drainMainQueue()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        subject.receive(on: scheduler).subscribe(recorder)
        subject.send(1)
        XCTAssertEqual(recorder.values, [1], "sent on the main queue: delivered in line")
        let done = expectation(description: "delivered")
        let cancellable = subject.receive(on: scheduler).sink { value in
            if value == 2 {
                XCTAssertTrue(Thread.isMainThread)
                done.fulfill()
            }
        }
        DispatchQueue.global().async { subject.send(2) }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(recorder.values, [1, 2])
        withExtendedLifetime(cancellable) {}
    }
}

final class MainThreadSchedulerConcurrencyTests: XCTestCase {
    func testActionsFromManyThreadsAllRunOnMainInEachThreadsOrder() {
        let threads = 4
        let perThread = 200
        let log = LockedBox<[[Int]]>(Array(repeating: [], count: threads))
        let offMain = LockedBox(0)
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = threads * perThread
        DispatchQueue.global().async {
            runConcurrently(threads: threads) { thread in
                for index in 0..<perThread {
                    MainThreadScheduler.shared.schedule {
                        if !Thread.isMainThread { offMain.withLock { $0 += 1 } }
                        log.withLock { $0[thread].append(index) }
                        done.fulfill()
                    }
                }
            }
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(offMain.withLock { $0 }, 0)
        XCTAssertEqual(log.withLock { $0 }, Array(repeating: Array(0..<perThread), count: threads))
        var ranInLine = false
        MainThreadScheduler.shared.schedule { ranInLine = true }
        XCTAssertTrue(ranInLine, "every action has finished: the count is back to zero")
    }
}
