import XCTest

@testable import Untangle

/// `drop(untilOutputFrom:)`'s phases, tested as a pure state machine (no threads, no callouts): the upstream's phase
/// (open, ended) and the trigger's gate (shut, open).
final class DropUntilOutputStateMachineTests: XCTestCase {
    typealias Machine = DropUntilOutputStateMachine<Int, Void, TestError>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private func delivers(_ decision: TriggerValueDecision<Int, Never>) -> Bool {
        if case .deliver = decision { return true }
        return false
    }

    func testAValueBeforeTheGateOpensUsesUpDemandAndOneAfterItIsDelivered() {
        var machine = Machine()
        let upstream = Token()
        XCTAssertEqual(machine.upstreamSubscribed(upstream).demand, Subscribers.Demand.none)
        XCTAssertTrue((machine.requested(.max(2)) as? Token) === upstream)
        XCTAssertFalse(delivers(machine.upstreamSent(1)), "the gate is shut")
        let trigger = Token()
        XCTAssertEqual(machine.triggerSubscribed(trigger).demand, .max(1))
        let fired = machine.triggerSent(())
        XCTAssertTrue((fired.released as? Token) === trigger, "the trigger is released when it fires, not cancelled")
        XCTAssertNil(fired.cancelTrigger)
        XCTAssertFalse(fired.endsDownstream)
        XCTAssertTrue(delivers(machine.upstreamSent(2)))
    }

    func testTheUpstreamsCompletionEndsTheOperatorAndReleasesAWaitingTriggerWithoutACancel() {
        var machine = Machine()
        let upstream = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.requested(.max(3))
        let trigger = Token()
        _ = machine.triggerSubscribed(trigger)
        let completed = machine.upstreamCompleted(.finished)
        XCTAssertEqual(completed.completion, .finished)
        XCTAssertTrue(completed.endsDownstream, "nothing follows a completion (rule 4)")
        XCTAssertTrue((completed.released as? Token) === trigger, "released, not cancelled, as in Combine")
        XCTAssertNil(completed.cancelTrigger)
        XCTAssertNil(machine.upstreamCompleted(.finished).completion, "published once")
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted, "a later upstream is refused")
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted, "a later trigger is refused")
        XCTAssertNil(machine.requested(.max(1)), "nothing to ask once ended")
        XCTAssertFalse(delivers(machine.upstreamSent(1)))
        XCTAssertNil(machine.triggerCompleted(.failure(TestError(1))).completion)
    }

    func testTheUpstreamsCompletionAfterTheGateOpenedEndsTheDownstream() {
        var machine = Machine()
        _ = machine.upstreamSubscribed(Token())
        _ = machine.triggerSent(())
        XCTAssertTrue(machine.upstreamCompleted(.finished).endsDownstream)
    }

    func testTheTriggerFiringAfterTheUpstreamCompletedChangesNothing() {
        var machine = Machine()
        _ = machine.upstreamSubscribed(Token())
        _ = machine.requested(.max(1))
        _ = machine.upstreamCompleted(.finished)
        let fired = machine.triggerSent(())
        XCTAssertNil(fired.completion)
        XCTAssertFalse(fired.endsDownstream, "ended already, with the completion")
        XCTAssertFalse(
            delivers(machine.upstreamSent(1)), "the gate opens nothing once ended (the value uses up requested demand)")
    }

    func testTheTriggerCompletingFirstCancelsTheUpstreamAndEndsTheOperator() {
        var machine = Machine()
        let upstream = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.requested(.max(4))
        let trigger = Token()
        XCTAssertTrue(machine.triggerSubscribed(trigger).isAdmitted)
        let first = machine.triggerCompleted(.finished)
        XCTAssertTrue((first.cancelUpstream as? Token) === upstream)
        XCTAssertEqual(first.completion, .finished)
        XCTAssertTrue((first.released as? Token) === trigger, "the completed trigger is let go of")
        XCTAssertTrue(first.endsDownstream, "nothing follows a completion (rule 4)")
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted)
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted, "Combine would ask a new upstream; refused")
        XCTAssertNil(machine.triggerCompleted(.finished).completion, "Combine publishes it again; not here")
        XCTAssertNil(machine.upstreamCompleted(.finished).completion)
        _ = machine.triggerSent(())
        XCTAssertFalse(delivers(machine.upstreamSent(1)), "a trigger value after the end opens nothing")
    }

    func testTheTriggerCompletingAfterItFiredOnlyReleasesItsSubscription() {
        var machine = Machine()
        _ = machine.triggerSent(())
        let trigger = Token()
        XCTAssertTrue(machine.triggerSubscribed(trigger).isAdmitted, "a trigger subscribing after the gate opened")
        let completed = machine.triggerCompleted(.finished)
        XCTAssertNil(completed.cancelUpstream)
        XCTAssertNil(completed.completion)
        XCTAssertTrue((completed.released as? Token) === trigger)
    }

    func testCancelHandsBackBothSubscriptionsThenRefusesEverything() {
        var machine = Machine()
        let upstream = Token()
        let trigger = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.triggerSubscribed(trigger)
        let cancelled = machine.cancelled()
        XCTAssertTrue((cancelled.cancelUpstream as? Token) === upstream)
        XCTAssertTrue((cancelled.cancelTrigger as? Token) === trigger)
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted)
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted)
        XCTAssertNil(machine.upstreamCompleted(.finished).completion)
        let late = machine.triggerCompleted(.finished)
        XCTAssertNil(late.cancelUpstream)
        XCTAssertNil(late.completion)
        XCTAssertNil(machine.requested(.max(1)))
    }

    func testItsSubscriptionDescribesItselfAsCombinesDoes() {
        XCTAssertEqual(Machine.name, "DropUntilOutput")
        guard case .passThrough = Machine.demand, case .downstreamThenTriggerThenUpstream = Machine.start else {
            return XCTFail("Combine's demand and subscription order")
        }
    }
}
