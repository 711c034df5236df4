import Foundation
import Untangle
import UntangleSync
import XCTest

/// `values` and `Future.value` with the upstream delivering on other threads, and cancellations racing deliveries.
final class AsyncPublisherConcurrencyTests: XCTestCase {
    // Copies of one iterator pulled by four tasks at once: every value reaches exactly one of them, and each task sees
    // its own values in order (calls are answered in the order they were made).
    func testFourTasksPullingCopiesOfOneIteratorShareTheValuesWithoutLossOrDuplicates() async {
        let shared = SharedValues(iterator: (0..<2_000).publisher.values.makeAsyncIterator())
        let perTask = await withTaskGroup(of: [Int].self) { group -> [[Int]] in
            for _ in 0..<4 {
                group.addTask {
                    var copy = shared.iterator
                    var mine: [Int] = []
                    while let value = await copy.next() { mine.append(value) }
                    return mine
                }
            }
            var all: [[Int]] = []
            for await values in group { all.append(values) }
            return all
        }
        XCTAssertEqual(perTask.flatMap { $0 }.sorted(), Array(0..<2_000))
        for values in perTask { XCTAssertEqual(values, values.sorted()) }
    }

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

/// One iterator whose copies are handed to several tasks (the iterator is not Sendable; its copies share one
/// subscriber, which is).
private final class SharedValues: @unchecked Sendable {
    let iterator: AsyncPublisher<Publishers.Sequence<Range<Int>, Never>>.Iterator
    init(iterator: AsyncPublisher<Publishers.Sequence<Range<Int>, Never>>.Iterator) { self.iterator = iterator }
}
