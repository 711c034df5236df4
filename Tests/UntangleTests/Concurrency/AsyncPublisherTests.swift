import Foundation
import UntangleSync
import XCTest

@testable import Untangle

final class AsyncPublisherTests: XCTestCase {
    func testIteratesEveryValueThenEndsWhenThePublisherFinishes() async {
        var received: [Int] = []
        for await value in [1, 2, 3].publisher.values {
            received.append(value)
        }
        XCTAssertEqual(received, [1, 2, 3])
    }

    func testNothingIsRequestedUntilTheFirstNext() {
        let probe = AsyncProbePublisher<Int, Never>()
        let iterator = probe.values.makeAsyncIterator()
        XCTAssertTrue(probe.isSubscribed, "the iterator subscribes when it is made")
        XCTAssertEqual(probe.history, [])
        withExtendedLifetime(iterator) {}
    }

    func testEachNextRequestsExactlyOneValue() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let consumer = Task { () -> [Int?] in
            var iterator = probe.values.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return [first, second]
        }
        let firstRequest = await events.next()
        XCTAssertEqual(firstRequest, .request(.max(1)))
        XCTAssertEqual(probe.send(10), .none)
        let secondRequest = await events.next()
        XCTAssertEqual(secondRequest, .request(.max(1)))
        probe.send(20)
        let received = await consumer.value
        XCTAssertEqual(received, [10, 20])
        // The iterator went away with the task: its subscription is cancelled, and nothing more was requested.
        let last = await events.next()
        XCTAssertEqual(last, .cancel)
        XCTAssertEqual(probe.history, [.request(.max(1)), .request(.max(1)), .cancel])
    }

    // A synchronous upstream answers a request from inside it: the value is handed back without parking the task,
    // and the demand history is still one `.max(1)` per `next()` (the completion that follows the last element waits
    // behind it).
    func testAValueDeliveredDuringTheRequestIsReturnedAndDemandStaysOnePerNext() async {
        let requests = LockedBox<[Subscribers.Demand]>([])
        let upstream = [10, 20, 30].publisher.handleEvents(receiveRequest: { demand in
            requests.withCriticalSection { $0.append(demand) }
        })
        var iterator = upstream.values.makeAsyncIterator()
        var received: [Int?] = []
        for _ in 0..<5 {
            received.append(await iterator.next())
        }
        XCTAssertEqual(received, [10, 20, 30, nil, nil])
        XCTAssertEqual(requests.withCriticalSection { $0 }, [.max(1), .max(1), .max(1)])
    }

    // Regression: a second `next()` waiting at the same time (a copy of the iterator used from another task) stopped
    // the program; as in Combine, both wait, each with its own request, and are answered in the order they parked.
    // A call requests before it parks (Combine parks first), so the test lets the first call park before the second
    // starts: otherwise the second may park first and be answered first (a CI run saw `[2, 1]`), an order no program
    // can rely on between two racing tasks anyway.
    func testNextCallsWaitingTogetherAreAnsweredInTheOrderTheyParked() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let iterator = SharedIterator(probe.values.makeAsyncIterator())
        let first = Task {
            var copy = iterator.iterator
            return await copy.next()
        }
        let firstRequest = await events.next()
        XCTAssertEqual(firstRequest, .request(.max(1)))
        while iterator.parkedCalls < 1 { await Task.yield() }
        let second = Task {
            var copy = iterator.iterator
            return await copy.next()
        }
        let secondRequest = await events.next()
        XCTAssertEqual(secondRequest, .request(.max(1)))
        probe.send(1)
        probe.send(2)
        let (a, b) = (await first.value, await second.value)
        XCTAssertEqual([a, b], [1, 2])
        withExtendedLifetime(iterator) {}
    }

    // As in Combine: calls made before the subscription arrives are requested together when it does.
    func testNextCallsMadeBeforeTheSubscriptionAreRequestedTogether() async throws {
        let late = AsyncProbePublisher<Int, Never>()
        var events = late.events.makeAsyncIterator()
        let (iterator, subscriber) = await valuesOfAPublisherNotSubscribedYet()
        let started = LockedBox(0)
        let first = Task {
            var copy = iterator.iterator
            started.withLock { $0 += 1 }
            return await copy.next()
        }
        let second = Task {
            var copy = iterator.iterator
            started.withLock { $0 += 1 }
            return await copy.next()
        }
        // Usually both calls have parked by now (then one `.max(2)` follows the subscription); whenever they park,
        // no call is lost: together they ask for exactly two values.
        while started.withLock({ $0 }) < 2 { await Task.yield() }
        for _ in 0..<100 { await Task.yield() }
        late.subscribe(subscriber)
        var requested = 0
        while requested < 2, case .request(let demand)? = await events.next() {
            requested += demand.max ?? 0
        }
        XCTAssertEqual(requested, 2)
        late.send(7)
        late.send(8)
        let values = Set([await first.value, await second.value])
        XCTAssertEqual(values, [7, 8])
        withExtendedLifetime(iterator) {}
    }

    // Regression (conformance): a value arriving before the subscription ends the calls waiting then with nil, and,
    // as in Combine, their demand is still requested when the subscription arrives (it was forgotten).
    func testCallsEndedByAValueBeforeTheSubscriptionAreStillRequestedWhenItArrives() async throws {
        let late = AsyncProbePublisher<Int, Never>()
        let (iterator, subscriber) = await valuesOfAPublisherNotSubscribedYet()
        let done = LockedBox(false)
        let call = Task { () -> Int? in
            var copy = iterator.iterator
            defer { done.withLock { $0 = true } }
            return await copy.next()
        }
        // Each early value ends the calls parked at that moment; repeat until the call has parked and been ended.
        while !done.withLock({ $0 }) {
            XCTAssertEqual(subscriber.receive(42), .none)
            await Task.yield()
        }
        let value = await call.value
        XCTAssertNil(value)
        late.subscribe(subscriber)
        XCTAssertEqual(late.history, [.request(.max(1))])
        withExtendedLifetime(iterator) {}
    }

    func testValuesSentWhileNobodyAwaitsAreDroppedByAPassthroughSubject() async {
        // As in Apple's Combine: the iterator has no demand between next() calls, so a PassthroughSubject drops what
        // is sent then.
        let subject = PassthroughSubject<Int, Never>()
        let (requests, requested) = AsyncStream.makeStream(of: Subscribers.Demand.self)
        let iterator = subject.reportingRequests { requested.yield($0) }.values.makeAsyncIterator()
        subject.send(1)
        let consumer = Task {
            var iterator = iterator
            return await iterator.next()
        }
        var demands = requests.makeAsyncIterator()
        let demand = await demands.next()
        XCTAssertEqual(demand, .max(1))
        subject.send(2)
        let value = await consumer.value
        XCTAssertEqual(value, 2)
    }

    func testCancellingTheConsumingTaskCancelsTheUpstreamAndEndsTheLoop() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let consumer = Task { () -> [Int] in
            var received: [Int] = []
            for await value in probe.values { received.append(value) }
            return received
        }
        let request = await events.next()
        XCTAssertEqual(request, .request(.max(1)))
        probe.send(1)
        _ = await events.next()
        consumer.cancel()
        let cancel = await events.next()
        XCTAssertEqual(cancel, .cancel)
        let received = await consumer.value
        XCTAssertEqual(received, [1])
        XCTAssertEqual(probe.history, [.request(.max(1)), .request(.max(1)), .cancel])
    }

    func testBreakingOutOfTheLoopCancelsTheUpstream() async {
        let subject = CurrentValueSubject<Int, Never>(7)
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let consumer = Task { () -> Int? in
            for await value in probe.values { return value }
            return nil
        }
        _ = await events.next()
        probe.send(subject.value)
        let cancel = await events.next()
        XCTAssertEqual(cancel, .cancel)
        let value = await consumer.value
        XCTAssertEqual(value, 7)
    }

    func testAnAlreadyCancelledTaskGetsNilAndCancelsAtOnce() async {
        let probe = AsyncProbePublisher<Int, Never>()
        let consumer = Task { () -> Int? in
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = probe.values.makeAsyncIterator()
            return await iterator.next()
        }
        let value = await consumer.value
        XCTAssertNil(value)
        XCTAssertEqual(probe.history, [.cancel])
    }

    // Regression: `next()` requests before it registers its cancellation handler (one critical section decides the
    // request); a task cancelled while that request runs must still cancel the upstream and end the call, not park
    // it for good.
    func testATaskCancelledDuringItsOwnRequestCancelsTheUpstreamAndGetsNil() async {
        let history = LockedBox<[String]>([])
        let subject = PassthroughSubject<Int, Never>()
        let upstream = subject.handleEvents(
            receiveCancel: { history.withCriticalSection { $0.append("cancel") } },
            receiveRequest: { demand in
                history.withCriticalSection { $0.append("request \(demand)") }
                withUnsafeCurrentTask { $0?.cancel() }
            })
        let consumer = Task { () -> [Int?] in
            var iterator = upstream.values.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return [first, second]
        }
        let received = await consumer.value
        XCTAssertEqual(received, [nil, nil])
        XCTAssertEqual(history.withCriticalSection { $0 }, ["request max(1)", "cancel"])
    }

    func testNextAfterTheEndKeepsReturningNil() async {
        var iterator = Just(5).values.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        let third = await iterator.next()
        XCTAssertEqual(first, 5)
        XCTAssertNil(second)
        XCTAssertNil(third)
    }

    func testACompletionWithNobodyWaitingEndsTheNextCall() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var iterator = probe.values.makeAsyncIterator()
        probe.send(completion: .finished)
        let value = await iterator.next()
        XCTAssertNil(value)
        XCTAssertEqual(probe.history, [], "a finished stream is not asked for anything")
    }

    func testTheUpstreamReleasesTheSubscriberAfterTheLoop() async {
        weak var weakIteratorTarget: AnyObject?
        do {
            let subject = PassthroughSubject<Int, Never>()
            let task = Task {
                for await _ in subject.values {}
            }
            await Task.yield()
            task.cancel()
            await task.value
            weakIteratorTarget = subject
        }
        XCTAssertNil(weakIteratorTarget, "the subject and everything it held are released")
    }
}

/// `values` of a publisher that has not answered the subscriber yet: the iterator, and the subscriber the test hands
/// a subscription (or early signals) later.
private func valuesOfAPublisherNotSubscribedYet() async -> (
    SharedIterator<AnyPublisher<Int, Never>>, AnySubscriber<Int, Never>
) {
    let (subscribed, subscribedContinuation) = AsyncStream.makeStream(of: Void.self)
    let subscriberBox = LockedBox<AnySubscriber<Int, Never>?>(nil)
    let capturing = AnyPublisher<Int, Never>(
        CapturingPublisher<Int, Never> { subscriber in
            subscriberBox.withLock { $0 = subscriber }
            subscribedContinuation.yield()
        })
    let iterator = SharedIterator(capturing.values.makeAsyncIterator())
    var waitForSubscriber = subscribed.makeAsyncIterator()
    _ = await waitForSubscriber.next()
    guard let subscriber = subscriberBox.withLock({ $0 }) else { preconditionFailure("the iterator subscribes") }
    return (iterator, subscriber)
}

/// Copies of one iterator handed to several tasks (the iterator is not Sendable; its copies share one subscriber).
private final class SharedIterator<P: Publisher>: @unchecked Sendable where P.Failure == Never {
    let iterator: AsyncPublisher<P>.Iterator
    init(_ iterator: AsyncPublisher<P>.Iterator) { self.iterator = iterator }
    /// The `next()` calls parked in the shared subscriber, waiting for a value.
    var parkedCalls: Int { iterator.owner.subscriber.state.withCriticalSection { $0.waiting.count } }
}
