import XCTest

@testable import Untangle

/// A multicast subscriber's phases, tested as a pure state machine: awaiting the subject's subscription,
/// subscribed, terminal.
final class MulticastInnerStateMachineTests: XCTestCase {
    typealias Machine = MulticastInnerStateMachine<String>

    func testTheFirstSubscriptionGoesDownstreamAndASecondIsRefused() {
        let subject = LoggingSubscription()
        var machine = Machine(downstream: "downstream")
        XCTAssertNil(machine.live, "nothing is relayed before the subscription")
        XCTAssertEqual(machine.receiveSubscription(subject), "downstream")
        XCTAssertEqual(machine.live?.1.combineIdentifier, subject.combineIdentifier)
        XCTAssertNil(machine.receiveSubscription(LoggingSubscription()), "cancelled by the caller")
    }

    func testTheCompletionEndsOnceAndNothingIsCancelledAfterIt() {
        var machine = Machine(downstream: "downstream")
        _ = machine.receiveSubscription(LoggingSubscription())
        XCTAssertEqual(machine.receiveCompletion()?.0, "downstream")
        XCTAssertNil(machine.receiveCompletion())
        XCTAssertNil(machine.cancel())
        XCTAssertNil(machine.live)
        XCTAssertNil(machine.receiveSubscription(LoggingSubscription()))
    }

    func testACancelHandsBackTheSubscriptionToCancelOnce() {
        let subject = LoggingSubscription()
        var machine = Machine(downstream: "downstream")
        _ = machine.receiveSubscription(subject)
        XCTAssertEqual(machine.cancel()?.1.combineIdentifier, subject.combineIdentifier)
        XCTAssertNil(machine.cancel())
        XCTAssertNil(machine.receiveCompletion(), "no completion after the cancel")
    }
}
