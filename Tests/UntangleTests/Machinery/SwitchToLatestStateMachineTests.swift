import Testing
import XCTest

@testable import Untangle

/// switchToLatest's machine (the outer, the current inner by generation, the demand and the tickets of values in
/// flight), decision by decision.
final class SwitchToLatestStateMachineTests: XCTestCase {
    private typealias Machine = SwitchToLatestStateMachine

    /// A machine with its outer subscribed and generation 1's inner subscribed, `demand` requested.
    private func withInner(demand: Subscribers.Demand = .max(2)) -> (Machine, LoggingSubscription, LoggingSubscription)
    {
        var machine = Machine()
        let outer = LoggingSubscription()
        XCTAssertTrue(machine.outerSubscribed(outer))
        XCTAssertFalse(machine.outerSubscribed(LoggingSubscription()), "a second outer subscription")
        XCTAssertEqual(machine.request(demand).count, 0, "no inner yet")
        guard let (generation, replaced) = machine.switched() else { fatalError("switches") }
        XCTAssertEqual(generation, 1)
        XCTAssertNil(replaced)
        let inner = LoggingSubscription()
        XCTAssertEqual(machine.innerSubscribed(1, inner), demand, "the demand carries over")
        return (machine, outer, inner)
    }

    func testAValueGoesOutWithATicketAndTheDemandReturnedMeanwhileGoesBackThroughIt() {
        var (machine, _, _) = withInner()
        XCTAssertEqual(machine.admit(1), .offer(ticket: 1))
        XCTAssertTrue(machine.deliver(1))
        XCTAssertNil(machine.delivered(1, ticket: 1, more: .max(3)), "the inner is still in receive(_:)")
        XCTAssertEqual(machine.takeReply(1), .max(3))
    }

    func testASwitchCancelsTheReplacedInnerAndDropsItsValuesEvenQueuedOnes() {
        var (machine, _, first) = withInner()
        XCTAssertEqual(machine.admit(1), .offer(ticket: 1))
        guard let (generation, replaced) = machine.switched() else { return XCTFail("switches") }
        XCTAssertEqual(generation, 2)
        XCTAssertTrue(isSame(replaced, first))
        XCTAssertFalse(machine.deliver(1), "a queued value of the replaced inner is dropped at delivery")
        XCTAssertEqual(machine.admit(1), .drop)
        XCTAssertNil(machine.innerSubscribed(1, LoggingSubscription()), "a replaced inner's late subscription")
        let second = LoggingSubscription()
        XCTAssertEqual(machine.innerSubscribed(2, second), .max(2))
        XCTAssertEqual(identities(machine.request(.max(1))), identities(second))
    }

    func testAValueWithoutDemandAndACompletionBeforeTheSubscriptionAreCombinesTraps() {
        var (machine, _, _) = withInner(demand: .none)
        XCTAssertEqual(machine.admit(1), .trap)
        _ = machine.switched()
        guard case .trap = machine.innerCompleted(2, failed: false) else { return XCTFail("traps, as Combine") }
    }

    func testTheSwitchFinishesWhenTheOuterAndTheCurrentInnerHaveFinished() {
        var (machine, outer, inner) = withInner()
        let (finish, released) = machine.outerFinished()
        XCTAssertFalse(finish, "the inner is live")
        XCTAssertTrue(isSame(released, outer))
        XCTAssertNil(machine.switched(), "no new inner after the outer finished")
        guard case .finished(let innerReleased, finish: true) = machine.innerCompleted(1, failed: false) else {
            return XCTFail("finishes")
        }
        XCTAssertTrue(isSame(innerReleased, inner))
        XCTAssertTrue(machine.isTerminated)
    }

    func testAnOuterFailureBeforeTheInnersSubscriptionAsksItOnceThenForgetsIt() {
        var machine = Machine()
        _ = machine.outerSubscribed(LoggingSubscription())
        _ = machine.request(.max(1))
        _ = machine.switched()
        guard let (cancel, _) = machine.outerFailed() else { return XCTFail("fails") }
        XCTAssertEqual(cancel.count, 0, "no inner subscription yet")
        XCTAssertEqual(machine.innerSubscribed(1, LoggingSubscription()), .max(1), "asked, as Combine does")
        XCTAssertTrue(machine.isTerminated)
        XCTAssertNil(machine.cancelled())
    }

    func testTheCancelCancelsTheCurrentInnerThenTheOuter() {
        var (machine, outer, inner) = withInner()
        XCTAssertEqual(identities(machine.cancelled()?.cancel ?? []), identities(inner, outer))
        XCTAssertNil(machine.cancelled())
        XCTAssertEqual(machine.admit(1), .drop)
    }
}

/// The events switchToLatest's subscription can never send, each trapped with its message (in a child process).
@Suite struct SwitchToLatestStateMachineTrapTests {
    @Test func takingTheReplyOfAValueNeverAdmittedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = SwitchToLatestStateMachine()
            _ = machine.takeReply(5)
        }
        #expect(
            result?.standardErrorText.contains(
                "SwitchToLatestStateMachine: takeReply(5) for a ticket never admitted or taken twice") == true)
    }

    @Test func aSignalOfAGenerationNeverSwitchedToTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // The outer subscribed and generation 1's inner subscribed, 2 requested; then a value of generation 2.
            var machine = SwitchToLatestStateMachine()
            _ = machine.outerSubscribed(LoggingSubscription())
            _ = machine.request(.max(2))
            _ = machine.switched()
            _ = machine.innerSubscribed(1, LoggingSubscription())
            _ = machine.admit(2)
        }
        #expect(
            result?.standardErrorText.contains(
                "SwitchToLatestStateMachine: admit(2) for an inner it never handed out") == true)
    }
}
