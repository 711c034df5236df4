import Foundation
import Untangle
import UntangleSync
import XCTest

/// A TextOutputStream that collects lines (a class, so the copy `print(to:)` keeps writes into the same storage).
private final class LineCollector: TextOutputStream, @unchecked Sendable {
    private let lines = LockedBox<String>("")
    func write(_ string: String) { lines.withLock { $0 += string } }
    var text: String { lines.withLock { $0 } }
}

private struct CollectorStream: TextOutputStream {
    let collector: LineCollector
    mutating func write(_ string: String) { collector.write(string) }
}

/// An upstream that keeps its subscriber and lets a test signal it in any order, as a misbehaving publisher would
/// (after a completion, twice, before a subscription): what the debugging operators relay then is Combine's business.
private final class RawPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let box = LockedBox<(AnySubscriber<Output, Failure>, Any)?>(nil)
    var subscriber: AnySubscriber<Output, Failure>? { box.withLock { $0?.0 } }
    /// The operator's own subscriber object (for the operators whose subscriber is also the subscription).
    var erasedSubscriber: Any? { box.withLock { $0?.1 } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        box.withLock { $0 = (AnySubscriber(subscriber), subscriber) }
    }
}

final class HandleEventsTests: XCTestCase {
    func testEveryHookSeesItsEventAndValuesPassThrough() {
        let log = LockedBox<[String]>([])
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2)) { _, _ in .max(1) }
        upstream.handleEvents(
            receiveSubscription: { _ in log.withLock { $0.append("subscription") } },
            receiveOutput: { value in log.withLock { $0.append("output \(value)") } },
            receiveCompletion: { _ in log.withLock { $0.append("completion") } },
            receiveCancel: { log.withLock { $0.append("cancel") } },
            receiveRequest: { demand in log.withLock { $0.append("request \(demand)") } }
        ).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        upstream.send(completion: .finished)
        XCTAssertEqual(
            log.withLock { $0 }, ["subscription", "request max(2)", "output 1", "request max(1)", "completion"])
        XCTAssertEqual(
            recorder.events, [.subscription("HandleEvents"), .value(1), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(2))])
    }

    func testCancelHookRunsOnceAndCancelReachesUpstream() {
        let cancels = LockedBox(0)
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        upstream.handleEvents(receiveCancel: { cancels.withLock { $0 += 1 } }).subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(cancels.withLock { $0 }, 1)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        upstream.send(1)
        XCTAssertEqual(recorder.values, [], "nothing after cancel")
    }

    func testReleasesTheSubscriberAfterCancel() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.handleEvents().subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
    }

    func testRequestNoneIsForwardedUpstreamAndSeenByTheRequestHook() {
        let requests = LockedBox<[Subscribers.Demand]>([])
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.handleEvents(receiveRequest: { demand in requests.withLock { $0.append(demand) } }).subscribe(recorder)
        recorder.request(.max(3))
        recorder.subscription?.request(.none)
        XCTAssertEqual(upstream.history, [.request(.max(3)), .request(.none)])
        XCTAssertEqual(requests.withLock { $0 }, [.max(3), .none])
    }

    func testRequestHookSeesOnlyNonZeroDemandReturnedFromReceive() {
        let requests = LockedBox<[Subscribers.Demand]>([])
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2)) { _, value in value == 1 ? .none : .max(4) }
        upstream.handleEvents(receiveRequest: { demand in requests.withLock { $0.append(demand) } }).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(upstream.send(2), .max(4))
        XCTAssertEqual(requests.withLock { $0 }, [.max(2), .max(4)])
    }

    func testNoRequestHookAfterACancelMadeInsideReceiveEvenForTheDemandItReturns() {
        // Combine reports nothing after receiveCancel; the demand a subscriber returns from the receive(_:) in which
        // it cancelled was reported after it (found by the random pipelines' fan-in mode, seeds 54169, 83384).
        let hooks = LockedBox<[String]>([])
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.cancel()
            return .max(1)
        }
        upstream.handleEvents(
            receiveOutput: { value in hooks.withLock { $0.append("value \(value)") } },
            receiveCancel: { hooks.withLock { $0.append("cancel") } },
            receiveRequest: { demand in hooks.withLock { $0.append("request \(demand)") } }
        ).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1), "the returned demand still goes upstream, as in Combine")
        XCTAssertEqual(hooks.withLock { $0 }, ["request max(1)", "value 1", "cancel"])
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
        XCTAssertEqual(recorder.values, [1])
    }

    func testHooksRunBeforeTheSubscriptionAndValueArePassedOn() {
        let log = LockedBox<[String]>([])
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { _, value in
                log.withLock { $0.append("downstream value \(value)") }
                return .none
            },
            onSubscription: { _, _ in log.withLock { $0.append("downstream subscription") } })
        upstream.handleEvents(
            receiveSubscription: { _ in log.withLock { $0.append("hook subscription") } },
            receiveOutput: { value in log.withLock { $0.append("hook value \(value)") } },
            receiveRequest: { demand in log.withLock { $0.append("hook request \(demand)") } }
        ).subscribe(recorder)
        upstream.send(5)
        XCTAssertEqual(
            log.withLock { $0 },
            [
                "hook subscription", "downstream subscription", "hook request max(1)", "hook value 5",
                "downstream value 5",
            ])
        XCTAssertEqual(upstream.history, [.request(.max(1))])
    }

    // Combine keeps its subscriber and relays whatever the upstream sends after the completion; Untangle lets the
    // subscriber go with the completion (the threading contract), so nothing more reaches it, and the hooks end too.
    func testNothingReachesTheSubscriberAfterTheCompletionAndTheHooksHaveEnded() throws {
        let completions = LockedBox(0)
        let upstream = RawPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.handleEvents(receiveCompletion: { _ in completions.withLock { $0 += 1 } }).subscribe(recorder)
        let subscriber = try XCTUnwrap(upstream.subscriber)
        XCTAssertEqual(subscriber.receive(0), .none, "a value before the subscription is relayed")
        subscriber.receive(completion: .finished)
        subscriber.receive(completion: .failure(TestError(2)))
        XCTAssertEqual(subscriber.receive(1), .none)
        XCTAssertEqual(completions.withLock { $0 }, 1)
        XCTAssertEqual(recorder.events, [.value(0), .completion(.finished)])
    }

    func testSecondSubscriptionIsCancelled() throws {
        let upstream = RawPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.handleEvents().subscribe(recorder)
        let subscriber = try XCTUnwrap(upstream.subscriber)
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        first.subscribe(subscriber)
        second.subscribe(subscriber)
        XCTAssertEqual(first.history, [])
        XCTAssertEqual(second.history, [.cancel])
        XCTAssertEqual(recorder.events, [.subscription("HandleEvents")])
    }

    // Combine ignores a cancel made before the upstream's subscription arrives; Untangle's cancel is final (the
    // threading contract), so that subscription is cancelled as it arrives and the subscriber never sees it.
    func testCancelBeforeTheSubscriptionArrivesCancelsIt() throws {
        let cancels = LockedBox(0)
        let upstream = RawPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.handleEvents(receiveCancel: { cancels.withLock { $0 += 1 } }).subscribe(recorder)
        let operatorSubscription = try XCTUnwrap(upstream.erasedSubscriber as? Subscription)
        operatorSubscription.cancel()
        operatorSubscription.cancel()
        XCTAssertEqual(cancels.withLock { $0 }, 1)
        let late = ManualPublisher<Int, Never>()
        late.subscribe(try XCTUnwrap(upstream.subscriber))
        XCTAssertEqual(late.history, [.cancel])
        XCTAssertEqual(recorder.events, [])
    }

    func testDescribesItselfWithAnEmptyMirror() {
        let recorder = Recorder<Int, Never>()
        Just(1).handleEvents().subscribe(recorder)
        let subscription: Any = recorder.subscription!
        XCTAssertEqual((subscription as? CustomStringConvertible)?.description, "HandleEvents")
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "HandleEvents")
        XCTAssertEqual((subscription as? CustomReflectable)?.customMirror.children.count, 0)
    }
}

final class PrintTests: XCTestCase {
    func testLogsLikeCombine() {
        let collector = LineCollector()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        [1, 2].publisher.print("nums", to: CollectorStream(collector: collector)).subscribe(recorder)
        XCTAssertEqual(
            collector.text,
            """
            nums: receive subscription: ([1, 2])
            nums: request max: (1)
            nums: receive value: (1)
            nums: request max: (1) (synchronous)
            nums: receive value: (2)
            nums: request max: (1) (synchronous)
            nums: receive finished

            """)
        XCTAssertEqual(recorder.values, [1, 2])
    }

    func testNoPrefixErrorAndCancel() {
        let collector = LineCollector()
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        subject.print(to: CollectorStream(collector: collector)).subscribe(recorder)
        recorder.cancel()
        let failing = Recorder<Int, TestError>()
        Fail<Int, TestError>(error: TestError(3)).print(to: CollectorStream(collector: collector)).subscribe(failing)
        XCTAssertEqual(
            collector.text,
            """
            receive subscription: (PassthroughSubject)
            request unlimited
            receive cancel
            receive subscription: (Empty)
            request unlimited
            receive error: (TestError(3))

            """)
    }

    func testWritesEachLineThroughPrintToACopyOfTheStream() {
        let writes = LockedBox<[String]>([])
        let collector = WriteLog(writes: writes)
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Just(1).print(to: collector).subscribe(recorder)
        XCTAssertEqual(writes.withLock { $0 }, ["", "receive subscription: (Just)", "\n"])
    }

    func testLogsTheZeroDemandReturnedFromReceive() {
        let collector = LineCollector()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .none }
        upstream.print("p", to: CollectorStream(collector: collector)).subscribe(recorder)
        upstream.send(7)
        XCTAssertEqual(
            collector.text,
            """
            p: receive subscription: (ManualSubscription)
            p: request max: (1)
            p: receive value: (7)
            p: request max: (0) (synchronous)

            """)
    }

    func testLogsEveryCancelAndRequestButCancelsUpstreamOnce() {
        let collector = LineCollector()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.print(to: CollectorStream(collector: collector)).subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        recorder.subscription?.request(.max(1))
        XCTAssertEqual(upstream.history, [.cancel])
        XCTAssertEqual(
            collector.text,
            """
            receive subscription: (ManualSubscription)
            receive cancel
            receive cancel
            request max: (1)

            """)
    }
}

/// Records each `write` call separately (a class: the copies `print(to:)` makes share it).
private final class WriteLog: TextOutputStream, @unchecked Sendable {
    let writes: LockedBox<[String]>
    init(writes: LockedBox<[String]>) { self.writes = writes }
    func write(_ string: String) { writes.withLock { $0.append(string) } }
}

final class BreakpointTests: XCTestCase {
    func testPassesEverythingThroughWhenNoClosureAsksToStop() {
        let recorder = Recorder<Int, TestError>()
        let seen = LockedBox(0)
        [1, 2].publisher.setFailureType(to: TestError.self)
            .breakpoint(
                receiveSubscription: { _ in false },
                receiveOutput: { _ in
                    seen.withLock { $0 += 1 }
                    return false
                },
                receiveCompletion: { _ in false }
            )
            .breakpointOnError()
            .subscribe(recorder)
        XCTAssertEqual(seen.withLock { $0 }, 2)
        XCTAssertEqual(recorder.events.dropFirst(), [.value(1), .value(2), .completion(.finished)])
    }

    // As in Combine, breakpoint keeps no state: its subscriber hands the upstream's own subscription down.
    func testTheSubscriberGetsTheUpstreamSubscriptionItself() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.breakpoint().subscribe(recorder)
        recorder.cancel()
        recorder.subscription?.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("ManualSubscription")])
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel, .request(.max(1))])
    }

    func testItsSubscriberDescribesItselfWithAnEmptyMirror() {
        let upstream = RawPublisher<Int, Never>()
        upstream.breakpoint().subscribe(Recorder<Int, Never>())
        let subscriber: Any = upstream.erasedSubscriber!
        XCTAssertEqual((subscriber as? CustomStringConvertible)?.description, "Breakpoint")
        XCTAssertEqual(
            (subscriber as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Breakpoint")
        XCTAssertEqual((subscriber as? CustomReflectable)?.customMirror.children.count, 0)
        XCTAssertFalse(subscriber is Subscription)
    }
}

final class AssertNoFailureTests: XCTestCase {
    func testRepublishesValuesAndFinish() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        [1, 2].publisher.setFailureType(to: TestError.self).assertNoFailure("never").subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events, [.subscription("[1, 2]"), .value(1), .value(2), .completion(.finished)],
            "assertNoFailure is transparent, as in Combine")
    }
}

private struct Point: Codable, Equatable {
    let x: Int
    let y: Int
}

final class CodingTests: XCTestCase {
    func testEncodeThenDecodeRoundTripsWithJSON() {
        let recorder = Recorder<Point, Error>()
        [Point(x: 1, y: 2), Point(x: 3, y: 4)].publisher
            .encode(encoder: JSONEncoder())
            .decode(type: Point.self, decoder: JSONDecoder())
            .subscribe(recorder)
        XCTAssertEqual(recorder.values, [Point(x: 1, y: 2), Point(x: 3, y: 4)])
        XCTAssertEqual(recorder.completions.count, 1)
    }

    func testPropertyListCodersWork() {
        let recorder = Recorder<Point, Error>()
        Just(Point(x: 5, y: 6)).encode(encoder: PropertyListEncoder())
            .decode(type: Point.self, decoder: PropertyListDecoder())
            .subscribe(recorder)
        XCTAssertEqual(recorder.values, [Point(x: 5, y: 6)])
    }

    func testDecodingErrorCancelsUpstreamAndFails() {
        let upstream = ManualPublisher<Data, Never>()
        let recorder = Recorder<Point, Error>()
        upstream.decode(type: Point.self, decoder: JSONDecoder()).subscribe(recorder)
        upstream.send(Data("{\"x\": 1, \"y\": 2}".utf8))
        upstream.send(Data("not json".utf8))
        upstream.send(Data("{\"x\": 9, \"y\": 9}".utf8))
        XCTAssertEqual(recorder.values, [Point(x: 1, y: 2)])
        XCTAssertEqual(recorder.completions.count, 1)
        guard case .failure(let error)? = recorder.completions.first else { return XCTFail() }
        XCTAssertTrue(error is DecodingError, "got \(error)")
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension PrintTests {
    // OpenCombine/OpenCombine 55bdbba: print passed a second subscription on to its subscriber instead of
    // cancelling it.
    func testASecondSubscriptionIsCancelledAndNotPassedOn() throws {
        let collector = LineCollector()
        let upstream = CapturingPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.print(to: CollectorStream(collector: collector)).subscribe(recorder)
        let first = LoggingSubscription()
        let second = LoggingSubscription()
        let subscriber = try XCTUnwrap(upstream.erasedSubscriber)
        subscriber.receive(subscription: first)
        subscriber.receive(subscription: second)
        XCTAssertEqual(first.log, ["request(unlimited)"])
        XCTAssertEqual(second.log, ["cancel"])
        XCTAssertEqual(recorder.events.count, 1, "one subscription reached the subscriber")
        recorder.cancel()
        XCTAssertEqual(first.log, ["request(unlimited)", "cancel"])
    }
}
