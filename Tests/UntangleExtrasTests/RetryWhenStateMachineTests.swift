import Testing
import Untangle
import XCTest

@testable import UntangleExtras

/// retry(when:)'s phases, tested as a pure state machine: an attempt running with the trigger live, the last
/// attempt after the trigger finished, a failure awaiting the trigger, or ended.
final class RetryWhenStateMachineTests: XCTestCase {
    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    func testAFailureWaitsForTheTriggerWhoseValueStartsTheNextAttemptWithTheDemandLeft() {
        var machine = RetryWhenStateMachine()
        let trigger = Token()
        XCTAssertTrue(machine.triggerSubscribed(trigger))
        XCTAssertFalse(machine.triggerSubscribed(Token()), "a second trigger is refused")
        XCTAssertEqual(machine.startAttempt(), 1)
        let first = Token()
        XCTAssertEqual(machine.innerSubscribed(1, first), Subscribers.Demand.none)
        XCTAssertEqual(machine.request(.max(3)).count, 1)
        XCTAssertTrue(machine.innerValue(1).delivers)
        guard case .awaitTrigger(let released) = machine.upstreamFailed(1) else { return XCTFail("waits") }
        XCTAssertTrue((released as? Token) === first)
        XCTAssertTrue(machine.awaitingTrigger)
        XCTAssertFalse(machine.innerValue(1).delivers, "the failed attempt's late value is ignored")
        XCTAssertEqual(machine.request(.max(1)).count, 0, "no attempt to forward to")
        XCTAssertEqual(machine.triggerSent(), 2)
        XCTAssertNil(machine.triggerSent(), "no failure waits any more")
        XCTAssertNil(machine.innerSubscribed(1, Token()), "a stale attempt is refused")
        XCTAssertEqual(machine.innerSubscribed(2, Token()), .max(3))
        XCTAssertTrue(machine.isCurrent(2))
    }

    func testAfterTheTriggerFinishesTheRunningAttemptIsTheLastAndItsFailureFails() {
        var machine = RetryWhenStateMachine()
        _ = machine.triggerSubscribed(Token())
        _ = machine.startAttempt()
        _ = machine.innerSubscribed(1, Token())
        XCTAssertFalse(machine.triggerDidFinish(), "the attempt goes on")
        XCTAssertFalse(machine.triggerSubscribed(Token()), "the finished trigger's slot stays closed")
        XCTAssertTrue(machine.isCurrent(1))
        guard case .fail = machine.upstreamFailed(1) else { return XCTFail("fails") }
        XCTAssertTrue(machine.isTerminated)
    }

    func testTheTriggerFinishingWhileAFailureWaitsEndsTheOperator() {
        var machine = RetryWhenStateMachine()
        _ = machine.triggerSubscribed(Token())
        _ = machine.startAttempt()
        _ = machine.upstreamFailed(1)
        XCTAssertTrue(machine.triggerDidFinish())
        XCTAssertTrue(machine.isTerminated)
        XCTAssertNil(machine.startAttempt())
    }

    func testEndingCancelsWhatHasNotCompletedOnce() {
        var machine = RetryWhenStateMachine()
        let trigger = Token()
        _ = machine.triggerSubscribed(trigger)
        _ = machine.startAttempt()
        _ = machine.innerSubscribed(1, Token())
        let toCancel = machine.end(upstreamCompleted: true, triggerCompleted: false)
        XCTAssertEqual(toCancel?.count, 1)
        XCTAssertTrue((toCancel?.first as? Token) === trigger)
        XCTAssertNil(machine.cancelled())
        XCTAssertFalse(machine.isCurrent(1))
    }

    /// The phase takes less memory than the three flags it replaced (105 bytes then).
    func testThePhaseTakesNoMoreMemoryThanTheFlagsItReplaced() {
        XCTAssertEqual(MemoryLayout<RetryWhenStateMachine>.size, 104)
    }
}

/// The event retry(when:)'s subscription can never send, trapped with its message (in a child process).
@Suite struct RetryWhenStateMachineTrapTests {
    @Test func anAttemptStartedWhileOneRunsTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = RetryWhenStateMachine()
            _ = machine.startAttempt()
            _ = machine.startAttempt()
        }
        #expect(result?.standardErrorText.contains("RetryWhenStateMachine: startAttempt while an attempt runs") == true)
    }
}
