import Foundation
import Testing
import XCTest

@testable import Untangle

/// The pure state behind catch, tryCatch and retry, decision by decision; the traps it reports (for its subscription
/// to perform) are checked here, its own traps in a child process (``ReplacingUpstreamStateMachineTrapTests``).
final class ReplacingUpstreamStateMachineTests: XCTestCase {
    private typealias Machine = ReplacingUpstreamStateMachine

    private var catchMachine: Machine { Machine(earlyCompletion: .ignored, repeatedFailure: .trapped) }
    private var retryMachine: Machine { Machine(earlyCompletion: .handled, repeatedFailure: .ignored) }

    /// Subscribed to generation 0 with `demand` requested by the downstream.
    private func subscribed(_ base: Machine, demand: Subscribers.Demand = .none) -> Machine {
        var machine = base
        guard case .handOver(.none) = machine.subscribed(Subscriptions.empty, generation: 0) else {
            XCTFail("the first subscription hands the downstream its own")
            return machine
        }
        if demand > .none { XCTAssertNotNil(machine.request(demand)) }
        XCTAssertEqual(machine.subscribeReturned(), nil)
        return machine
    }

    func testTheFirstSubscriptionIsHandedOverOnceThenRequestedOnly() {
        var machine = subscribed(retryMachine, demand: .max(2))
        guard case .decide = machine.completed(generation: 0, failed: true) else { return XCTFail() }
        guard case .subscribeNow(1) = machine.replace(generation: 0) else { return XCTFail() }
        guard case .request(.max(2)) = machine.subscribed(Subscriptions.empty, generation: 1) else {
            return XCTFail("a resubscription asks for the outstanding demand, without a second handover")
        }
    }

    func testAValueWithNoOutstandingDemandIsReportedForTheCurrentUpstreamOnly() {
        var machine = subscribed(catchMachine)
        XCTAssertEqual(machine.deliver(generation: 0), .unrequested)
        XCTAssertNotNil(machine.request(.max(1)))
        XCTAssertEqual(machine.deliver(generation: 0), .deliver)
        XCTAssertEqual(machine.deliver(generation: 0), .unrequested)
        XCTAssertEqual(machine.deliver(generation: 3), .drop, "a stale upstream's value is dropped, not trapped")
        XCTAssertNotNil(machine.cancel())
        XCTAssertEqual(machine.deliver(generation: 0), .drop, "nothing is trapped after the end")
    }

    func testAValueBeforeAnySubscriptionIsUnrequested() {
        var machine = catchMachine
        XCTAssertEqual(machine.deliver(generation: 0), .unrequested)
    }

    func testCatchTrapsASecondFailureOfItsUpstreamButNotAfterTheEnd() {
        var machine = subscribed(catchMachine)
        guard case .decide = machine.completed(generation: 0, failed: true) else { return XCTFail() }
        guard case .trap = machine.completed(generation: 0, failed: true) else {
            return XCTFail("failing again while the handler runs")
        }
        _ = machine.replace(generation: 0)
        guard case .trap = machine.completed(generation: 0, failed: true) else {
            return XCTFail("failing again after the replacement was subscribed")
        }
        guard case .ignore = machine.completed(generation: 0, failed: false) else {
            return XCTFail("a stale finish is only dropped")
        }
        _ = machine.cancel()
        guard case .ignore = machine.completed(generation: 0, failed: true) else { return XCTFail() }
    }

    func testRetryDropsAStaleFailure() {
        var machine = subscribed(retryMachine)
        _ = machine.completed(generation: 0, failed: true)
        _ = machine.replace(generation: 0)
        guard case .ignore = machine.completed(generation: 0, failed: true) else { return XCTFail() }
    }

    func testEarlyCompletionIsDroppedByCatchAndHandledByRetry() {
        var catching = catchMachine
        guard case .ignore = catching.completed(generation: 0, failed: false) else { return XCTFail() }
        guard case .ignore = catching.completed(generation: 0, failed: true) else { return XCTFail() }
        guard case .handOver = catching.subscribed(Subscriptions.empty, generation: 0) else { return XCTFail() }

        var retrying = retryMachine
        guard case .finish = retrying.completed(generation: 0, failed: false) else { return XCTFail() }
        XCTAssertTrue(retrying.isEnded)
    }

    func testAReplacementDecidedDuringASubscribeCallWaitsForItToReturn() {
        var machine = retryMachine
        // Generation 0 fails synchronously inside its own subscribe call.
        _ = machine.subscribed(Subscriptions.empty, generation: 0)
        guard case .decide = machine.completed(generation: 0, failed: true) else { return XCTFail() }
        guard case .deferred = machine.replace(generation: 0) else { return XCTFail("must not nest") }
        XCTAssertEqual(machine.subscribeReturned(), 1)
        XCTAssertEqual(machine.subscribeReturned(), nil, "generation 1 returned without failing")
        _ = machine.subscribed(Subscriptions.empty, generation: 1)
        guard case .decide = machine.completed(generation: 1, failed: true) else { return XCTFail() }
        guard case .subscribeNow(2) = machine.replace(generation: 1) else {
            return XCTFail("no subscribe call running: this thread subscribes")
        }
    }

    func testACancelWhileAReplacementIsDecidedOrPendingWins() {
        var deciding = subscribed(catchMachine)
        _ = deciding.completed(generation: 0, failed: true)
        _ = deciding.cancel()
        guard case .none = deciding.replace(generation: 0) else { return XCTFail() }
        XCTAssertFalse(deciding.endFromFailing(generation: 0), "no completion after the cancel")

        var pending = retryMachine
        _ = pending.subscribed(Subscriptions.empty, generation: 0)
        _ = pending.completed(generation: 0, failed: true)
        _ = pending.replace(generation: 0)
        _ = pending.cancel()
        XCTAssertNil(pending.subscribeReturned(), "the pending resubscription is dropped")
        guard case .cancel = pending.subscribed(Subscriptions.empty, generation: 1) else { return XCTFail() }
    }

    func testDemandCarriesOverAcrossTheSwitch() {
        var machine = subscribed(catchMachine, demand: .max(5))
        XCTAssertEqual(machine.deliver(generation: 0), .deliver)
        XCTAssertNotNil(machine.add(.max(2), generation: 0))
        _ = machine.completed(generation: 0, failed: true)
        XCTAssertNil(machine.request(.max(1)), "no live subscription while the handler runs")
        _ = machine.replace(generation: 0)
        XCTAssertNil(machine.add(.max(1), generation: 1), "not subscribed yet: it asks when it is")
        guard case .request(.max(8)) = machine.subscribed(Subscriptions.empty, generation: 1) else {
            return XCTFail()
        }
    }
}

/// The events catch's and retry's subscription can never send, each trapped with its message (in a child process).
@Suite struct ReplacingUpstreamStateMachineTrapTests {
    @Test func aReplacementOfAnUpstreamThatIsNotFailingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = ReplacingUpstreamStateMachine(earlyCompletion: .ignored, repeatedFailure: .trapped)
            _ = machine.subscribed(Subscriptions.empty, generation: 0)
            _ = machine.replace(generation: 0)
        }
        #expect(
            result?.standardErrorText.contains("ReplacingUpstreamStateMachine: replace for an upstream not failing")
                == true)
    }

    @Test func anEndFromAFailureThatIsNotDecidedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = ReplacingUpstreamStateMachine(earlyCompletion: .ignored, repeatedFailure: .trapped)
            _ = machine.endFromFailing(generation: 0)
        }
        #expect(
            result?.standardErrorText.contains(
                "ReplacingUpstreamStateMachine: endFromFailing for an upstream not failing") == true)
    }

    @Test func aSubscribeCallReturningTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = ReplacingUpstreamStateMachine(earlyCompletion: .ignored, repeatedFailure: .trapped)
            _ = machine.subscribeReturned()
            _ = machine.subscribeReturned()
        }
        #expect(
            result?.standardErrorText.contains(
                "ReplacingUpstreamStateMachine: subscribeReturned with no subscribe call running") == true)
    }
}
