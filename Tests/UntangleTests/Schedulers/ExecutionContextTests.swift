import Dispatch
import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

private let contextKey = DispatchSpecificKey<String>()

/// A serial queue that names itself, so a callout can tell where it runs.
private func namedQueue(_ name: String) -> DispatchQueue {
    let queue = DispatchQueue(label: name)
    queue.setSpecific(key: contextKey, value: name)
    return queue
}

private func currentContext() -> String {
    DispatchQueue.getSpecific(key: contextKey) ?? "elsewhere"
}

/// Records the context (named queue) of every value and of the completion, and lets the test wait for them.
private final class ContextProbe<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    let subscribed: XCTestExpectation
    let values: XCTestExpectation
    let completed: XCTestExpectation
    private let log = LockedBox([String]())

    init(test: XCTestCase, expectedValues: Int) {
        subscribed = test.expectation(description: "subscribed")
        values = test.expectation(description: "values")
        values.expectedFulfillmentCount = max(expectedValues, 1)
        if expectedValues == 0 { values.fulfill() }
        completed = test.expectation(description: "completed")
    }

    var contexts: [String] { log.withLock { $0 } }

    func receive(subscription: Subscription) {
        subscription.request(.unlimited)
        subscribed.fulfill()
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let context = currentContext()
        log.withLock { $0.append(context) }
        values.fulfill()
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let context = currentContext()
        log.withLock { $0.append("end@\(context)") }
        completed.fulfill()
    }
}

/// Asserts the checkable rows of the Schedulers article (Untangle.docc/Schedulers.md): on which queue each publisher
/// or operator delivers values and completion.
final class ExecutionContextConcurrencyTests: XCTestCase {
    private let upstream = namedQueue("upstream")
    private let upstream2 = namedQueue("upstream2")
    private let scheduler = namedQueue("scheduler")
    private let subscriberQueue = namedQueue("subscriber")

    /// Subscribes `probe` to `publisher` from the "subscriber" queue, waits for the subscription, lets the
    /// scheduler queue run what the subscription scheduled, runs `sendValues`, waits for the values (and for the
    /// scheduler's delivery to return), then `sendCompletion`, and waits for the completion.
    private func contexts<P: Publisher>(
        _ publisher: P, values: Int, sendValues: () -> Void = {}, sendCompletion: () -> Void = {}
    ) -> [String] {
        let probe = ContextProbe<P.Output, P.Failure>(test: self, expectedValues: values)
        subscriberQueue.sync { publisher.subscribe(probe) }
        wait(for: [probe.subscribed], timeout: 30)
        scheduler.sync {}
        sendValues()
        wait(for: [probe.values], timeout: 30)
        // Let the scheduler's delivery return first: a signal sent while another thread is still delivering to the
        // subscriber is handed to that thread (serialized), which is the documented alternative, not the row.
        scheduler.sync {}
        sendCompletion()
        wait(for: [probe.completed], timeout: 30)
        return probe.contexts
    }

    private func pushRow<P: Publisher>(_ subject: PassthroughSubject<Int, Never>, _ publisher: P) -> [String] {
        contexts(
            publisher, values: 1,
            sendValues: { upstream.sync { subject.send(1) } },
            sendCompletion: { upstream.sync { subject.send(completion: .finished) } })
    }

    private func row<P: Publisher>(_ make: (PassthroughSubject<Int, Never>) -> P) -> [String] {
        let subject = PassthroughSubject<Int, Never>()
        return pushRow(subject, make(subject))
    }

    func testStatelessOperatorsDeliverOnTheUpstreamsThread() {
        let onUpstream = ["upstream", "end@upstream"]
        XCTAssertEqual(row { $0 }, onUpstream, "PassthroughSubject")
        XCTAssertEqual(row { $0.map { $0 + 1 } }, onUpstream, "map")
        XCTAssertEqual(row { $0.filter { _ in true } }, onUpstream, "filter")
        XCTAssertEqual(row { $0.tryMap { $0 } }, onUpstream, "tryMap")
        XCTAssertEqual(row { $0.measureInterval(using: scheduler) }, onUpstream, "measureInterval")
    }

    func testMergeDeliversOnWhicheverInputsThread() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let result = contexts(
            a.merge(with: b), values: 2,
            sendValues: {
                upstream.sync { a.send(1) }
                upstream2.sync { b.send(2) }
            },
            sendCompletion: {
                upstream.sync { a.send(completion: .finished) }
                upstream2.sync { b.send(completion: .finished) }
            })
        XCTAssertEqual(result, ["upstream", "upstream2", "end@upstream2"])
    }

    func testSchedulerOperatorsDeliverOnTheScheduler() {
        let onScheduler = ["scheduler", "end@scheduler"]
        XCTAssertEqual(row { $0.receive(on: scheduler) }, onScheduler, "receive(on:)")
        XCTAssertEqual(row { $0.delay(for: .nanoseconds(1), scheduler: scheduler) }, onScheduler, "delay")
        XCTAssertEqual(row { $0.debounce(for: .nanoseconds(1), scheduler: scheduler) }, onScheduler, "debounce")
        XCTAssertEqual(row { $0.throttle(for: .seconds(60), scheduler: scheduler, latest: true) }, onScheduler)
        XCTAssertEqual(row { $0.timeout(.seconds(60), scheduler: scheduler) }, onScheduler, "timeout")
    }

    /// As Apple's since iOS 13.3 (issue 29): groups cut by count and the completion go through the scheduler too.
    func testCollectByTimeDeliversGroupsAndTheCompletionOnTheScheduler() {
        let byCount = PassthroughSubject<Int, Never>()
        XCTAssertEqual(
            contexts(
                byCount.collect(.byTimeOrCount(scheduler, .seconds(60), 2)), values: 1,
                sendValues: {
                    upstream.sync {
                        byCount.send(1); byCount.send(2)
                    }
                },
                sendCompletion: { upstream.sync { byCount.send(completion: .finished) } }),
            ["scheduler", "end@scheduler"])
        let byTime = PassthroughSubject<Int, Never>()
        XCTAssertEqual(
            contexts(
                byTime.collect(.byTime(scheduler, .milliseconds(1))), values: 1,
                sendValues: { upstream.sync { byTime.send(1) } },
                sendCompletion: { upstream.sync { byTime.send(completion: .finished) } }),
            ["scheduler", "end@scheduler"])
    }

    func testSynchronousSourcesDeliverOnTheRequestingThreadWhichSubscribeOnMoves() {
        XCTAssertEqual(contexts(Just(1), values: 1), ["subscriber", "end@subscriber"], "Just")
        XCTAssertEqual(
            contexts(Just(1).subscribe(on: scheduler), values: 1), ["scheduler", "end@scheduler"],
            "subscribe(on:) moves a synchronous source's delivery")
        XCTAssertEqual(
            contexts([1, 2].publisher.subscribe(on: scheduler).map { $0 }, values: 2),
            ["scheduler", "scheduler", "end@scheduler"])
    }

    func testSubscribeOnDoesNotMoveAPushUpstreamsValues() {
        XCTAssertEqual(row { $0.subscribe(on: scheduler) }, ["upstream", "end@upstream"])
    }

    func testFutureDeliversOnTheFulfillingThread() {
        let promise = LockedBox<Future<Int, Never>.Promise?>(nil)
        let future = Future<Int, Never> { fulfil in promise.withLock { $0 = fulfil } }
        let fulfil = promise.withLock { $0 }!
        XCTAssertEqual(
            contexts(future, values: 1, sendValues: { upstream.sync { fulfil(.success(1)) } }),
            ["upstream", "end@upstream"])
    }
}
