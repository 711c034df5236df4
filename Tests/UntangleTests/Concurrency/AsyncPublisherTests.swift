import Foundation
import Untangle
import UntangleSync
import XCTest

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

    // Untangle's window (a documented deviation: Combine requests `.max(1)` per `next()`): the first call requests 64
    // values, and the calls that follow request nothing while more than half of the window is still ahead.
    func testTheFirstNextRequestsTheWindowAndTheFollowingCallsRequestNothingMore() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let consumer = Task { () -> [Int?] in
            var iterator = probe.values.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return [first, second]
        }
        let firstRequest = await events.next()
        XCTAssertEqual(firstRequest, .request(.max(64)))
        XCTAssertEqual(probe.send(10), .none)
        XCTAssertEqual(probe.send(20), .none)
        let received = await consumer.value
        XCTAssertEqual(received, [10, 20])
        // The iterator went away with the task: its subscription is cancelled, and nothing more was requested.
        let last = await events.next()
        XCTAssertEqual(last, .cancel)
        XCTAssertEqual(probe.history, [.request(.max(64)), .cancel])
    }

    // A synchronous upstream fills the window from inside the first request; the calls then take values without
    // asking, and the call that leaves 32 values ahead asks for 32 more (one request per 32 values, not one per value).
    func testTheWindowIsToppedUpByHalfAWindowOnceHalfOfItIsTaken() async {
        let taken = LockedBox(0)
        let requests = LockedBox<[String]>([])
        let upstream = (0..<100).publisher.handleEvents(receiveRequest: { demand in
            let takenSoFar = taken.withCriticalSection { $0 }
            requests.withCriticalSection { $0.append("\(demand) after \(takenSoFar) taken") }
        })
        var iterator = upstream.values.makeAsyncIterator()
        var received: [Int] = []
        while let value = await iterator.next() {
            received.append(value)
            taken.withCriticalSection { $0 += 1 }
        }
        XCTAssertEqual(received, Array(0..<100))
        XCTAssertEqual(
            requests.withCriticalSection { $0 },
            ["max(64) after 0 taken", "max(32) after 31 taken", "max(32) after 63 taken"])
        let afterTheEnd = await iterator.next()
        XCTAssertNil(afterTheEnd)
    }

    // Regression: with a window, a call that found the window's demand already outstanding parked without asking; the
    // 65th call waiting at once would then wait for a value nobody requested (a hang). Every waiting call beyond the
    // window asks for its own value, each value reaches exactly one call, and nothing more is requested.
    func testMoreCallsWaitingAtOnceThanTheWindowEachGetOneValueInsteadOfHanging() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let iterator = SharedIterator(probe.values.makeAsyncIterator())
        let calls = 67
        let consumers = (0..<calls).map { _ in
            Task { () -> Int? in
                var copy = iterator.iterator
                return await copy.next()
            }
        }
        var requested = 0
        while requested < calls, case .request(let demand)? = await events.next() {
            requested += demand.max ?? 0
        }
        XCTAssertEqual(requested, calls)
        XCTAssertEqual(probe.history, [.request(.max(64))] + Array(repeating: .request(.max(1)), count: calls - 64))
        for value in 0..<calls { probe.send(value) }
        var received: [Int] = []
        for consumer in consumers {
            if let value = await consumer.value { received.append(value) }
        }
        XCTAssertEqual(received.sorted(), Array(0..<calls))
        withExtendedLifetime(iterator) {}
    }

    // As in Combine, calls made before the subscription arrives are requested together when it does (with the window:
    // one `.max(64)`).
    func testNextCallsMadeBeforeTheSubscriptionAreRequestedTogether() async throws {
        let late = AsyncProbePublisher<Int, Never>()
        var events = late.events.makeAsyncIterator()
        let (subscribed, subscribedContinuation) = AsyncStream.makeStream(of: Void.self)
        let subscriberBox = LockedBox<AnySubscriber<Int, Never>?>(nil)
        let capturing = AnyPublisher<Int, Never>(
            CapturingPublisher { subscriber in
                subscriberBox.withLock { $0 = subscriber }
                subscribedContinuation.yield()
            })
        let iterator = SharedIterator(capturing.values.makeAsyncIterator())
        var waitForSubscriber = subscribed.makeAsyncIterator()
        _ = await waitForSubscriber.next()
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
        // Usually both calls have parked by now (then one `.max(64)` follows the subscription); whenever they park,
        // no call is lost, and together they ask for the window once.
        while started.withLock({ $0 }) < 2 { await Task.yield() }
        for _ in 0..<100 { await Task.yield() }
        let subscriber = try XCTUnwrap(subscriberBox.withLock { $0 })
        late.subscribe(subscriber)
        var requested = 0
        while requested < 2, case .request(let demand)? = await events.next() {
            requested += demand.max ?? 0
        }
        XCTAssertEqual(requested, 64, "the window, once, however many calls were parked")
        XCTAssertEqual(late.history, [.request(.max(64))])
        late.send(7)
        late.send(8)
        let values = Set([await first.value, await second.value])
        XCTAssertEqual(values, [7, 8])
        withExtendedLifetime(iterator) {}
    }

    // Combine drops what a PassthroughSubject sends between `next()` calls (it has no demand then); with the window, up
    // to 64 values sent while nobody awaits are kept, in order, and only what is sent beyond them is dropped.
    func testValuesASubjectSendsWhileNobodyAwaitsAreKeptUpToTheWindow() async {
        let subject = PassthroughSubject<Int, Never>()
        let (requests, requested) = AsyncStream.makeStream(of: Subscribers.Demand.self)
        let history = LockedBox<[Subscribers.Demand]>([])
        let iterator = SharedIterator(
            subject.handleEvents(receiveRequest: { demand in
                history.withCriticalSection { $0.append(demand) }
                requested.yield(demand)
            }).values.makeAsyncIterator())
        subject.send(1)  // before the first next(): nothing requested yet, dropped
        let consumer = Task {
            var copy = iterator.iterator
            return await copy.next()
        }
        var demands = requests.makeAsyncIterator()
        let demand = await demands.next()
        XCTAssertEqual(demand, .max(64))
        subject.send(2)
        let first = await consumer.value
        XCTAssertEqual(first, 2)
        // Nobody awaits now: 63 values are still requested; what comes beyond them is dropped by the subject.
        for value in 3...70 { subject.send(value) }
        var rest = iterator.iterator
        var received: [Int] = []
        for _ in 3...65 {
            if let value = await rest.next() { received.append(value) }
        }
        XCTAssertEqual(received, Array(3...65))
        subject.send(completion: .finished)
        let end = await rest.next()
        XCTAssertNil(end)
        XCTAssertEqual(history.withCriticalSection { $0 }, [.max(64), .max(32), .max(32)])
    }

    // The values kept for the loop belong to the iterator: leaving the loop cancels the upstream and releases them.
    func testLeavingTheLoopWithValuesKeptCancelsAndReleasesThem() async {
        let subject = PassthroughSubject<Token, Never>()
        let cancels = Counter()
        let (requests, requested) = AsyncStream.makeStream(of: Subscribers.Demand.self)
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let upstream = subject.handleEvents(
            receiveCancel: { cancels.increment() }, receiveRequest: { requested.yield($0) })
        let consumer = Task { () -> Int? in
            var gateIterator = gate.makeAsyncIterator()
            for await token in upstream.values {
                _ = await gateIterator.next()  // busy with the first value while the next ones arrive
                return token.id
            }
            return nil
        }
        var demands = requests.makeAsyncIterator()
        _ = await demands.next()
        weak var second: Token?
        weak var third: Token?
        do {
            subject.send(Token(1))
            let two = Token(2)
            let three = Token(3)
            second = two
            third = three
            subject.send(two)
            subject.send(three)
        }
        XCTAssertNotNil(second, "kept for the loop")
        XCTAssertNotNil(third, "kept for the loop")
        open.yield()
        let first = await consumer.value
        XCTAssertEqual(first, 1)
        XCTAssertEqual(cancels.value, 1)
        XCTAssertNil(second, "released by the cancel")
        XCTAssertNil(third, "released by the cancel")
    }

    func testCancellingTheConsumingTaskCancelsTheUpstreamAndEndsTheLoop() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let (delivered, deliver) = AsyncStream.makeStream(of: Int.self)
        let consumer = Task { () -> [Int] in
            var received: [Int] = []
            for await value in probe.values {
                received.append(value)
                deliver.yield(value)
            }
            return received
        }
        let request = await events.next()
        XCTAssertEqual(request, .request(.max(64)))
        probe.send(1)
        var deliveries = delivered.makeAsyncIterator()
        _ = await deliveries.next()
        consumer.cancel()
        let cancel = await events.next()
        XCTAssertEqual(cancel, .cancel)
        let received = await consumer.value
        XCTAssertEqual(received, [1])
        XCTAssertEqual(probe.history, [.request(.max(64)), .cancel])
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

/// A publisher that hands its subscriber to a closure and sends it nothing (the test subscribes it elsewhere later).
private struct CapturingPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never
    let capture: (AnySubscriber<Int, Never>) -> Void

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        capture(AnySubscriber(subscriber))
    }
}

/// Copies of one iterator handed to several tasks (the iterator is not Sendable; its copies share one subscriber).
private final class SharedIterator<P: Publisher>: @unchecked Sendable where P.Failure == Never {
    let iterator: AsyncPublisher<P>.Iterator
    init(_ iterator: AsyncPublisher<P>.Iterator) { self.iterator = iterator }
}
