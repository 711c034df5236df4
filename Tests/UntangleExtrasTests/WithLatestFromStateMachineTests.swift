import Untangle
import XCTest

@testable import UntangleExtras

/// withLatestFrom's phases (running with the other publisher's latest value, or terminated) and its two
/// subscriptions, tested as a pure state machine.
final class WithLatestFromStateMachineTests: XCTestCase {
    typealias Machine = WithLatestFromStateMachine<Int, String, String, TestError>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private func pair(_ decision: TriggerValueDecision<(Int, String), String>) -> String? {
        if case .deliver(let (value, latest)) = decision { return "\(value)\(latest)" }
        return nil
    }

    private func skipped(_ decision: TriggerValueDecision<(Int, String), String>) -> Subscribers.Demand? {
        if case .skip(let demand) = decision { return demand }
        return nil
    }

    func testDemandBeforeTheUpstreamSubscribedIsAskedWhenItDoesAndLaterDemandIsForwarded() {
        var machine = Machine()
        XCTAssertNil(machine.requested(.max(2)))
        XCTAssertNil(machine.requested(.max(1)))
        let upstream = Token()
        XCTAssertEqual(machine.upstreamSubscribed(upstream).demand, .max(3))
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted)
        XCTAssertTrue((machine.requested(.max(4)) as? Token) === upstream)
        XCTAssertEqual(machine.triggerSubscribed(Token()).demand, .unlimited)
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted)
    }

    func testAValueBeforeTheOthersFirstIsReplacedByARequestAndLaterOnesPairWithTheLatest() {
        var machine = Machine()
        XCTAssertEqual(skipped(machine.upstreamSent(1)), .max(1))
        XCTAssertNil(machine.triggerSent("a").releasedValue)
        XCTAssertEqual(pair(machine.upstreamSent(2)), "2a")
        XCTAssertEqual(machine.triggerSent("b").releasedValue, "a", "the replaced value is handed back")
        XCTAssertEqual(pair(machine.upstreamSent(3)), "3b")
    }

    func testTheOthersFinishKeepsTheLatestValue() {
        var machine = Machine()
        let other = Token()
        _ = machine.triggerSubscribed(other)
        _ = machine.triggerSent("x")
        let finished = machine.triggerCompleted(.finished)
        XCTAssertNil(finished.completion)
        XCTAssertTrue((finished.released as? Token) === other)
        XCTAssertEqual(pair(machine.upstreamSent(1)), "1x")
    }

    func testTheUpstreamsCompletionEndsCancellingTheOther() {
        var machine = Machine()
        let upstream = Token()
        let other = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.triggerSubscribed(other)
        _ = machine.triggerSent("x")
        let finished = machine.upstreamCompleted(.finished)
        XCTAssertEqual(finished.completion, .finished)
        XCTAssertEqual(finished.order, .afterWaitingValues, "a finish follows the values waiting for demand")
        XCTAssertTrue(finished.endsDownstream)
        XCTAssertTrue((finished.cancelTrigger as? Token) === other)
        XCTAssertTrue((finished.released as? Token) === upstream)
        XCTAssertEqual(finished.releasedValue, "x")
        XCTAssertEqual(skipped(machine.upstreamSent(2)), Subscribers.Demand.none)
        XCTAssertNil(machine.cancelled().completion, "ended once")

        var failing = Machine()
        XCTAssertEqual(failing.upstreamCompleted(.failure(TestError(1))).order, .dropWaitingValues)
    }

    func testTheOthersFailureEndsCancellingTheUpstream() {
        var machine = Machine()
        let upstream = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.triggerSubscribed(Token())
        let failed = machine.triggerCompleted(.failure(TestError(3)))
        XCTAssertEqual(failed.completion, .failure(TestError(3)))
        XCTAssertEqual(failed.order, .dropWaitingValues)
        XCTAssertTrue((failed.cancelUpstream as? Token) === upstream)
        XCTAssertNil(failed.cancelTrigger, "the failed publisher is not cancelled")
        XCTAssertEqual(machine.triggerSent("late").releasedValue, "late", "nothing is kept after the end")
    }

    func testCancelCancelsBothAndReleasesTheLatestValue() {
        var machine = Machine()
        let upstream = Token()
        let other = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.triggerSubscribed(other)
        _ = machine.triggerSent("x")
        let cancelled = machine.cancelled()
        XCTAssertTrue((cancelled.cancelUpstream as? Token) === upstream)
        XCTAssertTrue((cancelled.cancelTrigger as? Token) === other)
        XCTAssertEqual(cancelled.releasedValue, "x")
        XCTAssertNil(machine.requested(.max(1)))
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted)
    }
}
