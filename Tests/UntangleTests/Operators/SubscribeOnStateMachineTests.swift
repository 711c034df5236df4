import Testing
import XCTest

@testable import Untangle

/// subscribe(on:)'s phases, tested as a pure state machine: awaiting, subscribing (signals from other threads
/// queued), subscribed, cancelled early, ended.
final class SubscribeOnStateMachineTests: XCTestCase {
    typealias Machine = SubscribeOnStateMachine<Recorder<Int, TestError>>
    let me = ThreadID.current
    /// Another thread's identity (only compared, never used).
    lazy var other = ThreadID(bits: me.bits &+ 16)!
    let downstream = Recorder<Int, TestError>()

    private func subscribing(_ upstream: LoggingSubscription = .init()) -> Machine {
        var machine = Machine(downstream: downstream)
        guard case .deliver(let receiver) = machine.receiveSubscription(upstream, on: me), receiver === downstream
        else {
            XCTFail("the first subscription goes to the downstream")
            return machine
        }
        return machine
    }

    private func describe(_ signals: [Machine.Signal]) -> [String] {
        signals.map { signal in
            switch signal {
            case .value(let value): return "\(value)"
            case .completion(let completion): return "\(completion)"
            }
        }
    }

    func testSignalsFromTheSubscribingThreadAreDeliveredNestedAndOthersWaitForTheCallout() {
        var machine = subscribing()
        XCTAssertTrue(machine.receiveValue(1, on: me) === downstream, "nested, as in Combine")
        XCTAssertNil(machine.receiveValue(2, on: other), "queued for the subscribing thread")
        XCTAssertNil(machine.receiveValue(3, on: me), "queued behind 2")
        guard let (signals, receiver) = machine.subscriptionDelivered() else { return XCTFail() }
        XCTAssertEqual(describe(signals), ["2", "3"])
        XCTAssertTrue(receiver === downstream)
        XCTAssertNil(machine.subscriptionDelivered(), "nothing more queued: subscribed")
        guard case .subscribed = machine.phase else { return XCTFail() }
        XCTAssertTrue(machine.receiveValue(4, on: other) === downstream)
    }

    func testACompletionQueuedDuringTheCalloutEndsTheStreamAfterTheValuesBeforeIt() {
        var machine = subscribing()
        XCTAssertNil(machine.receiveValue(1, on: other))
        XCTAssertNil(machine.receiveCompletion(.failure(TestError(2)), on: other))
        XCTAssertNil(machine.receiveValue(3, on: other), "nothing after the completion")
        XCTAssertEqual(describe(machine.subscriptionDelivered()?.0 ?? []), ["1", "failure(TestError(2))"])
        guard case .ended = machine.phase else { return XCTFail() }
        XCTAssertNil(machine.subscriptionDelivered())
    }

    func testASecondSubscriptionIsCancelledAndOneAfterAnEarlyCancelIgnored() {
        var machine = subscribing()
        guard case .cancel = machine.receiveSubscription(LoggingSubscription(), on: me) else { return XCTFail() }

        var early = Machine(downstream: downstream)
        let (toCancel, _) = early.cancel()
        XCTAssertNil(toCancel)
        guard case .ignore = early.receiveSubscription(LoggingSubscription(), on: me) else {
            return XCTFail("as in Combine: neither passed on nor cancelled")
        }
    }

    func testACancelEndsTheStreamAndForwardsNothingMore() {
        let upstream = LoggingSubscription()
        var machine = subscribing(upstream)
        XCTAssertEqual(machine.subscriptionForRequest()?.combineIdentifier, upstream.combineIdentifier)
        let (toCancel, _) = machine.cancel()
        XCTAssertEqual(toCancel?.combineIdentifier, upstream.combineIdentifier)
        XCTAssertNil(machine.subscriptionForRequest())
        XCTAssertNil(machine.cancel().0, "cancel is idempotent")
        XCTAssertNil(machine.subscriptionDelivered(), "the callout returns to an ended stream")
        XCTAssertNil(machine.receiveValue(1, on: me))
    }
}

/// The event subscribe(on:)'s subscription can never send, trapped with its message (in a child process).
@Suite struct SubscribeOnStateMachineTrapTests {
    @Test func aCalloutReturningTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = SubscribeOnStateMachine<Recorder<Int, TestError>>(downstream: Recorder())
            _ = machine.receiveSubscription(LoggingSubscription(), on: ThreadID.current)
            _ = machine.subscriptionDelivered()
            _ = machine.subscriptionDelivered()
        }
        #expect(
            result?.standardErrorText.contains(
                "SubscribeOnStateMachine: subscriptionDelivered outside the subscription callout") == true)
    }
}
