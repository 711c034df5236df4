import UntangleSync
import XCTest

@testable import Untangle

/// `drop(untilOutputFrom:)`'s phases, tested as a pure state machine (no threads, no callouts): the upstream's phase
/// (open, completed, cancelled) and the trigger's gate (shut, completed first, open).
final class DropUntilOutputStateMachineTests: XCTestCase {
    typealias Machine = DropUntilOutputStateMachine<Recorder<Int, Never>>
    let me = ThreadID.current

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private func isDone(_ action: Machine.LeaveAction) -> (done: Bool, released: Recorder<Int, Never>?) {
        if case .done(let released) = action { return (true, released) }
        return (false, nil)
    }

    func testAValueBeforeTheGateOpensUsesUpDemandAndOneAfterItIsDelivered() {
        var machine = Machine(downstream: Recorder())
        let upstream = Token()
        XCTAssertEqual(machine.upstreamSubscribed(upstream), Subscribers.Demand.none)
        XCTAssertTrue((machine.request(.max(2)) as? Token) === upstream)
        XCTAssertNil(machine.valueReceived(on: me), "the gate is shut")
        let trigger = Token()
        XCTAssertTrue(machine.triggerSubscribed(trigger))
        XCTAssertTrue((machine.triggerFired() as? Token) === trigger, "the trigger is released when it fires")
        XCTAssertNotNil(machine.valueReceived(on: me))
        XCTAssertEqual(isDone(machine.leave()).done, true)
        XCTAssertNil(isDone(machine.leave()).released, "the upstream is still open")
    }

    func testTheUpstreamsCompletionClosesItButKeepsItsSubscriptionForRequestsAsInCombine() {
        var machine = Machine(downstream: Recorder())
        let upstream = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.request(.max(3))
        XCTAssertNotNil(machine.upstreamCompleted(.finished, on: me))
        XCTAssertNil(isDone(machine.leave()).released, "kept: the trigger's completion can still be published")
        XCTAssertNil(machine.upstreamCompleted(.finished, on: me), "published once")
        XCTAssertNil(machine.upstreamSubscribed(Token()), "a later upstream is refused")
        XCTAssertTrue((machine.request(.max(1)) as? Token) === upstream)
        XCTAssertNil(machine.valueReceived(on: me), "dropped once the upstream completed, even after the gate opens")
        _ = machine.triggerFired()
        XCTAssertNil(machine.valueReceived(on: me))
    }

    func testTheDownstreamIsReleasedOnceTheUpstreamCompletedAndTheGateOpened() {
        var machine = Machine(downstream: Recorder())
        _ = machine.upstreamSubscribed(Token())
        _ = machine.triggerFired()
        XCTAssertNotNil(machine.upstreamCompleted(.finished, on: me))
        XCTAssertNotNil(isDone(machine.leave()).released)
    }

    func testTheTriggerCompletingFirstCancelsTheUpstreamAndReopensItsSlotAsInCombine() {
        var machine = Machine(downstream: Recorder())
        let upstream = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.request(.max(4))
        let trigger = Token()
        XCTAssertTrue(machine.triggerSubscribed(trigger))
        let first = machine.triggerCompleted(.finished, on: me)
        XCTAssertTrue((first.cancel as? Token) === upstream)
        XCTAssertNotNil(first.deliver)
        XCTAssertNil(first.released, "kept: a second trigger subscription is refused")
        XCTAssertNil(isDone(machine.leave()).released, "the upstream has not completed")
        XCTAssertFalse(machine.triggerSubscribed(Token()))
        XCTAssertEqual(machine.upstreamSubscribed(Token()), .max(4), "a new upstream is asked for the demand so far")
        XCTAssertNotNil(machine.triggerCompleted(.finished, on: me).deliver, "published again, as in Combine")
        XCTAssertEqual(isDone(machine.leave()).done, true)
        XCTAssertNotNil(machine.upstreamCompleted(.finished, on: me))
        XCTAssertNotNil(isDone(machine.leave()).released, "nothing more can reach the downstream")
    }

    func testTheTriggerCompletingAfterItFiredOnlyReleasesItsSubscription() {
        var machine = Machine(downstream: Recorder())
        _ = machine.triggerFired()
        let trigger = Token()
        XCTAssertTrue(machine.triggerSubscribed(trigger), "a trigger subscribing after the gate opened is accepted")
        let completed = machine.triggerCompleted(.finished, on: me)
        XCTAssertNil(completed.cancel)
        XCTAssertNil(completed.deliver)
        XCTAssertTrue((completed.released as? Token) === trigger)
    }

    func testCancelHandsBackBothSubscriptionsAndTheDownstreamThenRefusesEverything() {
        var machine = Machine(downstream: Recorder())
        let upstream = Token()
        let trigger = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.triggerSubscribed(trigger)
        let cancelled = machine.cancelled()
        XCTAssertTrue((cancelled.upstream as? Token) === upstream)
        XCTAssertTrue((cancelled.trigger as? Token) === trigger)
        XCTAssertNotNil(cancelled.released)
        XCTAssertNil(machine.upstreamSubscribed(Token()))
        XCTAssertFalse(machine.triggerSubscribed(Token()))
        XCTAssertNil(machine.upstreamCompleted(.finished, on: me))
        let late = machine.triggerCompleted(.finished, on: me)
        XCTAssertNil(late.cancel)
        XCTAssertNil(late.deliver)
        XCTAssertNil(machine.request(.max(1)))
    }

    /// The phases take less memory than the four flags they replaced (160 bytes then, for this downstream): the
    /// upstream's phase and the gate are stored last, so their tag bytes pack after the words.
    func testThePhasesTakeNoMoreMemoryThanTheFlagsTheyReplaced() {
        XCTAssertEqual(MemoryLayout<DropUntilOutputStateMachine<AnySubscriber<Int, Error>>>.size, 154)
    }
}
