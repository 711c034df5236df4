import Foundation
import UntangleSync
import XCTest

@testable import Untangle

/// The prefetch window of the subscriber behind `values` (internal: `values` itself keeps Combine's `.max(1)` per
/// `next()`; the window is the machinery for a bounded prefetch, driven here through the iterator's owner).
final class AsyncValueWindowTests: XCTestCase {
    // The first call requests the whole window; the calls that follow request nothing while more than half of it is
    // still ahead.
    func testTheFirstNextRequestsTheWindowAndTheFollowingCallsRequestNothingMore() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let owner = AsyncIteratorOwner(subscribingTo: probe, window: 64)
        let consumer = Task { () -> [Int?] in
            let first = await owner.next()
            let second = await owner.next()
            return [first, second].map { $0?.get() }
        }
        let firstRequest = await events.next()
        XCTAssertEqual(firstRequest, .request(.max(64)))
        XCTAssertEqual(probe.send(10), .none)
        XCTAssertEqual(probe.send(20), .none)
        let received = await consumer.value
        XCTAssertEqual(received, [10, 20])
        XCTAssertEqual(probe.history, [.request(.max(64))])
        withExtendedLifetime(owner) {}
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
        let owner = AsyncIteratorOwner(subscribingTo: upstream, window: 64)
        var received: [Int] = []
        while case .success(let value)? = await owner.next() {
            received.append(value)
            taken.withCriticalSection { $0 += 1 }
        }
        XCTAssertEqual(received, Array(0..<100))
        XCTAssertEqual(
            requests.withCriticalSection { $0 },
            ["max(64) after 0 taken", "max(32) after 31 taken", "max(32) after 63 taken"])
        let afterTheEnd = await owner.next()
        XCTAssertNil(afterTheEnd)
    }

    // Regression: with a window, a call that found the window's demand already outstanding parked without asking; the
    // 65th call waiting at once would then wait for a value nobody requested (a hang). Every waiting call beyond the
    // window asks for its own value, each value reaches exactly one call, and nothing more is requested.
    func testMoreCallsWaitingAtOnceThanTheWindowEachGetOneValueInsteadOfHanging() async {
        let probe = AsyncProbePublisher<Int, Never>()
        var events = probe.events.makeAsyncIterator()
        let owner = AsyncIteratorOwner(subscribingTo: probe, window: 64)
        let calls = 67
        let consumers = (0..<calls).map { _ in
            Task { () -> Int? in await owner.next()?.get() }
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
    }

    // Combine drops what a PassthroughSubject sends between `next()` calls; with a window, up to its size of values
    // sent while nobody awaits are kept, in order, and only what is sent beyond them is dropped.
    func testValuesASubjectSendsWhileNobodyAwaitsAreKeptUpToTheWindow() async {
        let subject = PassthroughSubject<Int, Never>()
        let (requests, requested) = AsyncStream.makeStream(of: Subscribers.Demand.self)
        let history = LockedBox<[Subscribers.Demand]>([])
        let owner = AsyncIteratorOwner(
            subscribingTo: subject.reportingRequests { demand in
                history.withCriticalSection { $0.append(demand) }
                requested.yield(demand)
            },
            window: 64)
        subject.send(1)  // before the first next(): nothing requested yet, dropped
        let consumer = Task { await owner.next()?.get() }
        var demands = requests.makeAsyncIterator()
        let demand = await demands.next()
        XCTAssertEqual(demand, .max(64))
        subject.send(2)
        let first = await consumer.value
        XCTAssertEqual(first, 2)
        // Nobody awaits now: 63 values are still requested; what comes beyond them is dropped by the subject.
        for value in 3...70 { subject.send(value) }
        var received: [Int] = []
        for _ in 3...65 {
            if case .success(let value)? = await owner.next() { received.append(value) }
        }
        XCTAssertEqual(received, Array(3...65))
        subject.send(completion: .finished)
        let end = await owner.next()
        XCTAssertNil(end)
        XCTAssertEqual(history.withCriticalSection { $0 }, [.max(64), .max(32), .max(32)])
    }

    // The values kept belong to the iterator: releasing it cancels the upstream and releases them.
    func testReleasingTheIteratorWithValuesKeptCancelsAndReleasesThem() async {
        let subject = PassthroughSubject<Token, Never>()
        let cancels = Counter()
        let (requests, requested) = AsyncStream.makeStream(of: Subscribers.Demand.self)
        weak var second: Token?
        weak var third: Token?
        do {
            let owner = AsyncIteratorOwner(
                subscribingTo: subject.handleEvents(receiveCancel: { cancels.increment() })
                    .reportingRequests { requested.yield($0) },
                window: 64)
            let consumer = Task { await owner.next()?.get().id }
            var demands = requests.makeAsyncIterator()
            _ = await demands.next()
            subject.send(Token(1))
            let first = await consumer.value
            XCTAssertEqual(first, 1)
            do {
                let two = Token(2)
                let three = Token(3)
                second = two
                third = three
                subject.send(two)
                subject.send(three)
            }
            XCTAssertNotNil(second, "kept for the next call")
            XCTAssertNotNil(third, "kept for the next call")
            XCTAssertEqual(cancels.value, 0)
        }
        XCTAssertEqual(cancels.value, 1)
        XCTAssertNil(second, "released by the cancel")
        XCTAssertNil(third, "released by the cancel")
    }

    // Values that arrived while nobody awaited come first, in order; the failure that followed them comes after
    // them, once.
    func testAFailureComesAfterTheValuesThatArrivedBeforeIt() async {
        let probe = AsyncProbePublisher<Int, TestError>()
        var events = probe.events.makeAsyncIterator()
        let owner = AsyncIteratorOwner(subscribingTo: probe, window: 64)
        let consumer = Task { try? await owner.next()?.get() }
        _ = await events.next()
        probe.send(1)
        let first = await consumer.value
        XCTAssertEqual(first, 1)
        probe.send(2)
        probe.send(3)
        probe.send(completion: .failure(TestError(4)))
        var log: [String] = []
        for _ in 0..<4 {
            switch await owner.next() {
            case .success(let value)?: log.append("value(\(value))")
            case .failure(let error)?: log.append("failure(\(error))")
            case nil: log.append("nil")
            }
        }
        XCTAssertEqual(log, ["value(2)", "value(3)", "failure(TestError(4))", "nil"])
        XCTAssertEqual(probe.history, [.request(.max(64))], "a failed upstream is neither asked again nor cancelled")
    }
}
