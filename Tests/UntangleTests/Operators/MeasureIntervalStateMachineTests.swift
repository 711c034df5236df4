import XCTest

@testable import Untangle

/// measureInterval's phases, tested as a pure state machine: awaiting, subscribed, cancelled early, ended.
final class MeasureIntervalStateMachineTests: XCTestCase {
    typealias Machine = MeasureIntervalStateMachine<String>

    func testTheFirstSubscriptionGoesDownstreamAndASecondIsCancelled() {
        let upstream = LoggingSubscription()
        var machine = Machine(downstream: "downstream")
        XCTAssertNil(machine.live)
        guard case .deliver("downstream") = machine.receiveSubscription(upstream) else { return XCTFail() }
        XCTAssertEqual(machine.live?.0.combineIdentifier, upstream.combineIdentifier)
        XCTAssertEqual(machine.live?.1, "downstream")
        guard case .cancel = machine.receiveSubscription(LoggingSubscription()) else { return XCTFail() }
    }

    func testTheCompletionEndsTheStreamOnce() {
        var machine = Machine(downstream: "downstream")
        _ = machine.receiveSubscription(LoggingSubscription())
        XCTAssertEqual(machine.receiveCompletion(), "downstream")
        XCTAssertNil(machine.receiveCompletion())
        XCTAssertNil(machine.live)
        XCTAssertNil(machine.cancel(), "nothing to cancel after the end")
        guard case .cancel = machine.receiveSubscription(LoggingSubscription()) else { return XCTFail() }
    }

    func testACancelWhileSubscribedCancelsTheUpstreamAndReleasesTheDownstream() {
        let upstream = LoggingSubscription()
        var machine = Machine(downstream: "downstream")
        _ = machine.receiveSubscription(upstream)
        let cancelled = machine.cancel()
        XCTAssertEqual(cancelled?.upstream?.combineIdentifier, upstream.combineIdentifier)
        XCTAssertEqual(cancelled?.released, "downstream")
        XCTAssertNil(machine.cancel(), "cancel is idempotent")
        XCTAssertNil(machine.receiveCompletion())
    }

    func testACancelBeforeTheSubscriptionMakesTheLateOneIgnored() {
        var machine = Machine(downstream: "downstream")
        let cancelled = machine.cancel()
        XCTAssertNil(cancelled?.upstream)
        XCTAssertEqual(cancelled?.released, "downstream", "released after unlocking")
        guard case .ignore = machine.receiveSubscription(LoggingSubscription()) else {
            return XCTFail("as in Combine: neither passed on nor cancelled")
        }
    }
}
