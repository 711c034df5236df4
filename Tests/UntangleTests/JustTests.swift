import Untangle
import UntangleSync
import XCTest

final class JustTests: XCTestCase {
    func testWithoutDemandOnlyTheSubscriptionArrives() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Just(7).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Just")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7), .completion(.finished)])
    }

    func testDemandOfOneGetsTheValueAndFinishedAtOnce() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        Just(7).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7), .completion(.finished)])
    }

    func testUnlimitedDemand() {
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        Just(7).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7), .completion(.finished)])
    }

    func testDemandReturnedFromReceiveChangesNothing() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        Just(7).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7), .completion(.finished)])
    }

    func testRequestsAfterCompletionDeliverNothingMore() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        Just(7).subscribe(recorder)
        recorder.request(.max(1))
        recorder.request(.unlimited)
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7), .completion(.finished)])
    }

    func testCancelBeforeRequestDeliversNothing() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Just(7).subscribe(recorder)
        recorder.cancel()
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Just")])
    }

    func testCancelInsideReceiveSuppressesTheCompletion() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                recorder.cancel()
                return .none
            })
        Just(7).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7)])
    }

    func testCancelInsideReceiveSubscriptionDeliversNothing() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .unlimited, onSubscription: { _, subscription in subscription.cancel() })
        Just(7).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Just")])
    }

    func testReentrantRequestInsideReceiveDeliversNothingMore() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                recorder.request(.max(1))
                return .none
            })
        Just(7).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7), .completion(.finished)])
    }

    func testEverySubscriberGetsTheValue() {
        let just = Just("a")
        let first = Recorder<String, Never>()
        let second = Recorder<String, Never>()
        just.subscribe(first)
        just.subscribe(second)
        XCTAssertEqual(first.events, [.subscription("Just"), .value("a"), .completion(.finished)])
        XCTAssertEqual(second.events, first.events)
    }

    func testSubscriptionReleasesSubscriberAfterCompletion() {
        assertSubscriptionReleasesSubscriber(Just(1))
    }

    func testSubscriptionReleasesSubscriberAfterCancel() {
        assertSubscriptionReleasesSubscriber(Just(1), initialDemand: nil) { $0.cancel() }
    }

    func testSubscriptionIsNamedJustAndReflectsTheValueWhileItRuns() throws {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Just(42).subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Just")
        let children = Mirror(reflecting: subscription).children.map { "\($0.label ?? "-"): \($0.value)" }
        XCTAssertEqual(children, ["-: 42"])
        recorder.cancel()
        XCTAssertEqual(String(describing: subscription), "Just")
        XCTAssertEqual(Mirror(reflecting: subscription).children.count, 0, "a cancelled Just lets go of its value")
    }

    func testOutputAndEquatable() {
        XCTAssertEqual(Just(3).output, 3)
        XCTAssertEqual(Just(3), Just(3))
        XCTAssertNotEqual(Just(3), Just(4))
    }
}

final class JustConcurrencyTests: XCTestCase {
    func testRequestsFromEightThreadsDeliverTheValueExactlyOnce() {
        for _ in 0..<50 {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            Just(7).subscribe(recorder)
            runConcurrently(threads: 8) { _ in recorder.request(.max(1)) }
            XCTAssertEqual(recorder.events, [.subscription("Just"), .value(7), .completion(.finished)])
        }
    }

    func testRequestRacingCancelDeliversTheValueAtMostOnceAndNothingAfterItIsCancelled() {
        for _ in 0..<50 {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            Just(7).subscribe(recorder)
            runConcurrently(threads: 2) { index in
                if index == 0 { recorder.request(.max(1)) } else { recorder.cancel() }
            }
            let events = recorder.events
            XCTAssertTrue(
                events == [.subscription("Just")]
                    || events == [.subscription("Just"), .value(7)]
                    || events == [.subscription("Just"), .value(7), .completion(.finished)],
                "\(events)")
        }
    }
}
