import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import XCTest

/// Counts how many times each cancellable was cancelled.
private final class CancelCounter: @unchecked Sendable {
    private let counts = LockedBox([Int: Int]())
    func make(_ id: Int) -> AnyCancellable {
        AnyCancellable { self.counts.withLock { $0[id, default: 0] += 1 } }
    }
    var snapshot: [Int: Int] { counts.withLock { $0 } }
}

final class CancelBagTests: XCTestCase {
    func testInsertCountAndCancelEachOnce() {
        let bag = CancelBag()
        let counter = CancelCounter()
        for id in 0..<3 { bag.insert(counter.make(id)) }
        XCTAssertEqual(bag.count, 3)
        XCTAssertFalse(bag.isCancelled)
        bag.cancel()
        bag.cancel()
        XCTAssertTrue(bag.isCancelled)
        XCTAssertEqual(bag.count, 0)
        XCTAssertEqual(counter.snapshot, [0: 1, 1: 1, 2: 1])
    }

    func testInsertAfterCancelCancelsAtOnce() {
        let bag = CancelBag()
        bag.cancel()
        let counter = CancelCounter()
        bag.insert(counter.make(9))
        XCTAssertEqual(counter.snapshot, [9: 1])
        XCTAssertEqual(bag.count, 0)
    }

    func testDeinitCancelsEverything() {
        let counter = CancelCounter()
        do {
            let bag = CancelBag()
            counter.make(1).store(in: bag)
            counter.make(2).store(in: bag)
        }
        XCTAssertEqual(counter.snapshot, [1: 1, 2: 1])
    }

    func testStoreInBagKeepsASubscriptionAliveUntilCancel() {
        let bag = CancelBag()
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox<[Int]>([])
        subject.sink { value in received.withLock { $0.append(value) } }.store(in: bag)
        subject.send(1)
        bag.cancel()
        subject.send(2)
        XCTAssertEqual(received.withLock { $0 }, [1])
    }

    func testStoreOfANonAnyCancellableWrapsIt() {
        let bag = CancelBag()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let upstream = PassthroughSubject<Int, Never>()
        upstream.subscribe(sink)
        sink.store(in: bag)
        XCTAssertEqual(bag.count, 1)
        bag.cancel()
        XCTAssertEqual(bag.count, 0)
    }

    // An item's cancellation touching the bag again must not deadlock: cancellation runs outside the bag's lock.
    func testCancellationThatReentersTheBagDoesNotDeadlock() {
        let bag = CancelBag()
        let counter = CancelCounter()
        bag.insert(
            AnyCancellable {
                bag.insert(counter.make(1))
                bag.cancel()
                _ = bag.count
            })
        withWatchdog("reentrant cancel") { bag.cancel() }
        XCTAssertEqual(counter.snapshot, [1: 1])
    }
}

final class CancelBagConcurrencyTests: XCTestCase {
    /// Seed regression (LINE's migration): 1,000 concurrent `store` calls of `Just(i).sink { array.append }`; with
    /// `Set<AnyCancellable>` this crashes, with the reader/writer queue it can deadlock. Every value must arrive and
    /// every cancellable must be held, then cancelled exactly once.
    func testThousandWayConcurrentStoreFromTheLINEArticle() {
        let iterations = 1_000
        let bag = CancelBag()
        let array = LockedBox<[Int]>([])
        let counter = CancelCounter()
        runConcurrently(threads: 8) { thread in
            for index in stride(from: thread, to: iterations, by: 8) {
                Just(index).sink { value in array.withLock { $0.append(value) } }.store(in: bag)
                counter.make(index).store(in: bag)
            }
        }
        XCTAssertEqual(array.withLock { $0.sorted() }, Array(0..<iterations))
        XCTAssertEqual(bag.count, 2 * iterations)
        bag.cancel()
        XCTAssertEqual(counter.snapshot.count, iterations)
        XCTAssertTrue(counter.snapshot.values.allSatisfy { $0 == 1 })
    }

    /// Seed regression: the same stores while the GCD global pool is starved by blocked work items. A container
    /// built on `queue.sync`/barriers needs a pool thread to make progress and hangs here; CancelBag never waits
    /// for another thread, so the stores complete on their own threads.
    func testConcurrentStoreWithTheGlobalPoolStarved() {
        let blockers = 128
        let unblock = DispatchSemaphore(value: 0)
        let blocked = DispatchGroup()
        for _ in 0..<blockers {
            blocked.enter()
            DispatchQueue.global().async {
                _ = unblock.wait(timeout: .now() + 120)
                blocked.leave()
            }
        }
        defer {
            for _ in 0..<blockers { unblock.signal() }
            _ = blocked.wait(timeout: .now() + 60)
        }
        let bag = CancelBag()
        let array = LockedBox<[Int]>([])
        runConcurrently(threads: 8, timeout: 60) { thread in
            for index in stride(from: thread, to: 1_000, by: 8) {
                Just(index).sink { value in array.withLock { $0.append(value) } }.store(in: bag)
            }
        }
        XCTAssertEqual(array.withLock { $0.count }, 1_000)
        XCTAssertEqual(bag.count, 1_000)
        withWatchdog("cancel with a starved pool") { bag.cancel() }
        XCTAssertEqual(bag.count, 0)
    }

    func testStoresRacingCancelEachItemCancelledExactlyOnce() {
        let bag = CancelBag()
        let counter = CancelCounter()
        runConcurrently(threads: 8) { thread in
            for i in 0..<1_000 {
                if thread == 0 && i == 500 { bag.cancel() }
                counter.make(thread * 1_000 + i).store(in: bag)
            }
        }
        bag.cancel()
        XCTAssertEqual(counter.snapshot.count, 8_000, "every item was cancelled: by cancel() or at insert")
        XCTAssertTrue(counter.snapshot.values.allSatisfy { $0 == 1 })
    }

    /// Regression (found by `untangle stress` when the bag became striped): a thread that has seen `isCancelled`
    /// must have its next insert cancelled at once, whichever stripe it lands in, while cancel() is still working
    /// through the other stripes.
    func testAnItemStoredAfterIsCancelledIsCancelledAtOnce() {
        for _ in 0..<200 {
            let bag = CancelBag()
            let late = LockedBox(0)
            let notAtOnce = LockedBox(0)
            runConcurrently(threads: 4) { thread in
                for i in 0..<200 {
                    if thread == 0 && i == 20 { bag.cancel() }
                    let wasCancelled = bag.isCancelled
                    let cancelled = LockedBox(0)
                    AnyCancellable { cancelled.withLock { $0 += 1 } }.store(in: bag)
                    if wasCancelled {
                        late.withLock { $0 += 1 }
                        if cancelled.withLock({ $0 }) != 1 { notAtOnce.withLock { $0 += 1 } }
                    }
                }
            }
            XCTAssertGreaterThan(late.withLock { $0 }, 0, "some stores came after the cancel")
            XCTAssertEqual(notAtOnce.withLock { $0 }, 0, "stored after isCancelled but not cancelled at once")
        }
    }
}
