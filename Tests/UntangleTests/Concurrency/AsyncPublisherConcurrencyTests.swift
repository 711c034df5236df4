import Foundation
import Untangle
import UntangleSync
import XCTest

/// `values` and `Future.value` with the upstream delivering on other threads, and cancellations racing deliveries.
final class AsyncPublisherConcurrencyTests: XCTestCase {
    func testValuesProducedOnAQueueArriveInOrderOneRequestEach() async {
        let requests = LockedBox(0)
        let upstream = (0..<5_000).publisher
            .handleEvents(receiveRequest: { _ in requests.withLock { $0 += 1 } })
            .subscribe(on: DispatchQueue(label: "producer"))
        var received: [Int] = []
        received.reserveCapacity(5_000)
        for await value in upstream.values {
            received.append(value)
        }
        XCTAssertEqual(received, Array(0..<5_000))
        // One `.max(1)` per value: the sequence completes right after its last value, without another request.
        XCTAssertEqual(requests.withLock { $0 }, 5_000)
    }

    func testCancellationRacingDeliveryFromAnotherThreadAlwaysEndsTheLoop() async {
        for round in 0..<200 {
            let cancelled = LockedBox(false)
            let upstream = (0...).publisher
                .handleEvents(receiveCancel: { cancelled.withLock { $0 = true } })
                .subscribe(on: DispatchQueue(label: "producer-\(round)"))
            let consumer = Task { () -> Int in
                var count = 0
                for await value in upstream.values {
                    XCTAssertEqual(value, count)
                    count += 1
                }
                return count
            }
            if round % 2 == 0 { await Task.yield() }
            consumer.cancel()
            _ = await consumer.value
            // The cancel travels through subscribe(on:) to the producer queue; wait for it (watchdog) without sleeping.
            let deadline = Date().addingTimeInterval(30)
            while !cancelled.withLock({ $0 }) && Date() < deadline { await Task.yield() }
            XCTAssertTrue(cancelled.withLock { $0 }, "round \(round): upstream cancelled")
        }
    }

    func testSubjectSendingFromManyThreadsToAnAwaitingLoopNeverOverlapsOrHangs() async {
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox(0)
        let consumer = Task {
            for await _ in subject.values {
                if received.update({ $0 + 1 }) == 50 { break }
            }
        }
        // Senders keep sending until the loop has taken 50 values (values without demand are dropped).
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<4 {
                group.addTask {
                    var i = 0
                    while received.withLock({ $0 }) < 50 {
                        subject.send(sender * 1_000_000 + i)
                        i += 1
                        await Task.yield()
                    }
                }
            }
        }
        await consumer.value
        XCTAssertEqual(received.withLock { $0 }, 50)
    }

    func testFutureValueAwaitedByManyTasksWhileTheFutureIsFulfilledOnAnotherThread() async {
        for _ in 0..<50 {
            let box = PromiseBox<Int, TestError>()
            let future = box.makeFuture()
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { (try? await future.value) ?? -1 }
                }
                DispatchQueue.global().async { box.fulfil(.success(3)) }
                var values: [Int] = []
                for await value in group { values.append(value) }
                XCTAssertEqual(values, Array(repeating: 3, count: 8))
            }
        }
    }
}
