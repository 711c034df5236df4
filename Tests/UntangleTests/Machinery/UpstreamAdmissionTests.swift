import XCTest

@testable import Untangle

/// The one decide-then-act for an upstream's arriving subscription: `UpstreamSlot.admit` under the lock,
/// `UpstreamAdmission.perform` after it (fan-in inners, zip, combineLatest, buffer, withLatestFrom).
final class UpstreamAdmissionTests: XCTestCase {
    /// Records what the admission does to it.
    private final class Spy: Subscription {
        var calls: [String] = []
        func request(_ demand: Subscribers.Demand) { calls.append("request \(demand)") }
        func cancel() { calls.append("cancel") }
    }

    func testAnAwaitingSlotTakesTheSubscriptionAndRequestsTheDemand() {
        var slot = UpstreamSlot.awaiting
        let first = Spy()
        let admission = slot.admit(first, requesting: .max(3))
        XCTAssertTrue(admission.isAdmitted)
        XCTAssertTrue((slot.subscription as? Spy) === first)
        admission.perform(on: first, operator: "test")
        XCTAssertEqual(first.calls, ["request max(3)"])
    }

    func testNoDemandYetRequestsNothing() {
        var slot = UpstreamSlot.awaiting
        let first = Spy()
        slot.admit(first, requesting: .none).perform(on: first, operator: "test")
        XCTAssertTrue((slot.subscription as? Spy) === first)
        XCTAssertEqual(first.calls, [], "a request of .none is never made (an upstream may trap on it)")
    }

    func testASecondSubscriptionIsCancelledAndTheFirstKept() {
        var slot = UpstreamSlot.awaiting
        let first = Spy()
        let second = Spy()
        _ = slot.admit(first, requesting: .unlimited)
        let admission = slot.admit(second, requesting: .unlimited)
        XCTAssertFalse(admission.isAdmitted)
        admission.perform(on: second, operator: "test")
        XCTAssertEqual(second.calls, ["cancel"])
        XCTAssertEqual(first.calls, [])
        XCTAssertTrue((slot.subscription as? Spy) === first)
    }

    func testASubscriptionAfterTheSlotEndedIsCancelled() {
        var slot = UpstreamSlot.awaiting
        slot.end()
        let late = Spy()
        slot.admit(late, requesting: .unlimited).perform(on: late, operator: "test")
        XCTAssertEqual(late.calls, ["cancel"])
        XCTAssertTrue(slot.isEnded)
    }

    func testAMachinesOwnDecisionIsPerformedTheSameWay() {
        let refused = Spy()
        UpstreamAdmission.rejected.perform(on: refused, operator: "test")
        let taken = Spy()
        UpstreamAdmission(.max(1)).perform(on: taken, operator: "test")
        XCTAssertEqual(refused.calls, ["cancel"])
        XCTAssertEqual(taken.calls, ["request max(1)"])
    }
}
