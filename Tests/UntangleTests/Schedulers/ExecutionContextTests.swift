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
        let probe = Recorder<P.Output, P.Failure>(label: currentContext)
        subscriberQueue.sync { publisher.subscribe(probe) }
        probe.waitForSubscription()
        scheduler.sync {}
        sendValues()
        probe.waitForValues(values)
        // Let the scheduler's delivery return first: a signal sent while another thread is still delivering to the
        // subscriber is handed to that thread (serialized), which is the documented alternative, not the row.
        scheduler.sync {}
        sendCompletion()
        probe.waitForCompletion()
        return zip(probe.labels, probe.events).compactMap { context, event in
            switch event {
            case .subscription: return nil
            case .value: return context
            case .completion: return "end@\(context)"
            }
        }
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
