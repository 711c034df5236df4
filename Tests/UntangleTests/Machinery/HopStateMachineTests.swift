import Testing
import UntangleSync
import XCTest

@testable import Untangle

/// The scheduler hop's phases (`receive(on:)`, `delay`), tested as a pure state machine: awaiting, subscribed, the
/// completion scheduled, then due, terminal; the values in flight; the batch drain idle or scheduled.
final class HopStateMachineTests: XCTestCase {
    typealias Machine = HopStateMachine<Int, Subscribers.Completion<TestError>, String>

    private func subscribed(_ upstream: LoggingSubscription = .init()) -> Machine {
        var machine = Machine(downstream: "downstream")
        XCTAssertEqual(machine.receiveSubscription(upstream).demand, Subscribers.Demand.none)
        return machine
    }

    func testBeforeTheSubscriptionNothingIsForwardedAndASecondSubscriptionIsRejected() {
        var machine = Machine(downstream: "downstream")
        XCTAssertNil(machine.subscriptionForRequest())
        XCTAssertFalse(machine.receiveValue())
        XCTAssertFalse(machine.mayDeliverValue())
        let upstream = LoggingSubscription()
        XCTAssertTrue(machine.receiveSubscription(upstream).isAdmitted)
        XCTAssertFalse(machine.receiveSubscription(LoggingSubscription()).isAdmitted)
        XCTAssertEqual(machine.subscriptionForRequest()?.combineIdentifier, upstream.combineIdentifier)
        XCTAssertEqual(machine.subscriptionForReturnedDemand()?.combineIdentifier, upstream.combineIdentifier)
    }

    func testTheCompletionIsHandedOverOnceItsActionRanAndNoValueIsInFlight() {
        var machine = subscribed()
        XCTAssertTrue(machine.receiveValue())
        XCTAssertTrue(machine.receiveValue())
        XCTAssertTrue(machine.receiveCompletion(.finished))
        guard case .completionScheduled = machine.phase else { return XCTFail() }
        XCTAssertFalse(machine.receiveValue(), "a value after the completion is ignored")
        XCTAssertFalse(machine.receiveCompletion(.finished), "so is a second completion")
        XCTAssertNil(machine.subscriptionForRequest(), "requests stop at the completion")
        XCTAssertNotNil(machine.subscriptionForReturnedDemand(), "returned demand still goes upstream")
        XCTAssertTrue(machine.mayDeliverValue(), "values scheduled before the completion are still delivered")
        XCTAssertNil(machine.valueActionFinished(), "the completion's action has not run")
        XCTAssertNil(machine.completionActionRan(), "one value is still in flight (a concurrent queue)")
        guard case .completionDue = machine.phase else { return XCTFail() }
        guard let (completion, downstream) = machine.valueActionFinished() else {
            return XCTFail("the last value's action hands the completion over")
        }
        XCTAssertEqual(completion, .finished)
        XCTAssertEqual(downstream, "downstream")
        guard case .terminal = machine.phase else { return XCTFail() }
        XCTAssertFalse(machine.mayDeliverValue())
        XCTAssertNil(machine.cancel(), "nothing left to cancel")
    }

    func testACompletionWithNothingInFlightIsHandedOverByItsOwnAction() {
        var machine = subscribed()
        XCTAssertTrue(machine.receiveCompletion(.failure(TestError(2))))
        XCTAssertEqual(machine.completionActionRan()?.0, .failure(TestError(2)))
    }

    func testBatchedValuesScheduleOneDrainAtATime() {
        var machine = subscribed()
        XCTAssertEqual(machine.receiveBatchedValue(1), true, "the first value schedules the drain")
        XCTAssertEqual(machine.receiveBatchedValue(2), false, "the drain is scheduled already")
        let (taken, none) = machine.takeBatch()
        XCTAssertNil(none)
        var batch = taken!
        XCTAssertEqual([batch.popFirst(), batch.popFirst()], [1, 2])
        XCTAssertEqual(machine.receiveBatchedValue(3), false, "the drain runs: later values wait for it")
        let (more, completion) = machine.batchOffered(2, emptied: batch)
        XCTAssertTrue(more, "a value arrived meanwhile: the drain schedules itself again")
        XCTAssertNil(completion)
        XCTAssertEqual(machine.takeBatch().0?.count, 1)
        XCTAssertFalse(machine.batchOffered(1, emptied: RingBuffer()).0)
        guard case .idle = machine.drain else { return XCTFail("the drain ended") }
        XCTAssertEqual(machine.outstandingValues, 0)
        XCTAssertEqual(machine.receiveBatchedValue(4), true, "the next value schedules a new drain")
    }

    func testTheLastBatchHandsOverACompletionThatWaitedForIt() {
        var machine = subscribed()
        _ = machine.receiveBatchedValue(1)
        XCTAssertTrue(machine.receiveCompletion(.finished))
        XCTAssertNil(machine.completionActionRan(), "the batch is in flight")
        let (taken, _) = machine.takeBatch()
        XCTAssertEqual(machine.batchOffered(taken!.count, emptied: RingBuffer()).completion?.0, .finished)
    }

    func testACancelDropsTheBatchAndAWaitingCompletionAndEndsAScheduledDrain() {
        let upstream = LoggingSubscription()
        var machine = subscribed(upstream)
        _ = machine.receiveBatchedValue(1)
        _ = machine.receiveBatchedValue(2)
        guard let cancelled = machine.cancel() else { return XCTFail() }
        XCTAssertEqual(cancelled.upstream?.combineIdentifier, upstream.combineIdentifier)
        XCTAssertEqual(cancelled.downstream, "downstream")
        XCTAssertEqual(cancelled.batch.count, 2)
        XCTAssertNil(cancelled.completion)
        let (taken, completion) = machine.takeBatch()
        XCTAssertNil(taken, "the scheduled drain finds nothing")
        XCTAssertNil(completion)
        guard case .idle = machine.drain else { return XCTFail() }
        XCTAssertNil(machine.cancel(), "a second cancel does nothing")
    }

    func testACancelWhileTheCompletionWaitsDropsItAndCancelsNothingUpstream() {
        var machine = subscribed()
        _ = machine.receiveCompletion(.finished)
        let cancelled = machine.cancel()
        XCTAssertNil(cancelled?.upstream, "the upstream has completed")
        XCTAssertEqual(cancelled?.completion, .finished)
        XCTAssertNil(machine.completionActionRan(), "the completion's action finds the hop cancelled")
    }

    func testACancelBeforeTheSubscriptionRejectsItLater() {
        var machine = Machine(downstream: "downstream")
        let cancelled = machine.cancel()
        XCTAssertNil(cancelled?.upstream)
        XCTAssertEqual(cancelled?.downstream, "downstream")
        XCTAssertFalse(machine.receiveSubscription(LoggingSubscription()).isAdmitted)
    }
}

/// The events the hop's subscription can never send, each trapped with its message (in a child process).
@Suite struct HopStateMachineTrapTests {
    @Test func aCompletionActionWithNoCompletionTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = HopStateMachine<Int, Subscribers.Completion<TestError>, String>(downstream: "downstream")
            _ = machine.receiveSubscription(LoggingSubscription())
            _ = machine.completionActionRan()
        }
        #expect(
            result?.standardErrorText.contains("HopStateMachine: completionActionRan with no completion scheduled")
                == true)
    }

    @Test func aCompletionActionRunningTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = HopStateMachine<Int, Subscribers.Completion<TestError>, String>(downstream: "downstream")
            _ = machine.receiveSubscription(LoggingSubscription())
            _ = machine.receiveValue()
            _ = machine.receiveCompletion(.finished)
            _ = machine.completionActionRan()
            _ = machine.completionActionRan()
        }
        #expect(result?.standardErrorText.contains("HopStateMachine: completionActionRan twice") == true)
    }

    @Test func aValueActionWithNoValueInFlightTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = HopStateMachine<Int, Subscribers.Completion<TestError>, String>(downstream: "downstream")
            _ = machine.valueActionFinished()
        }
        #expect(
            result?.standardErrorText.contains(
                "HopStateMachine: valueActionFinished for more values than are in flight") == true)
    }

    @Test func aDrainThatWasNotScheduledTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = HopStateMachine<Int, Subscribers.Completion<TestError>, String>(downstream: "downstream")
            _ = machine.takeBatch()
        }
        #expect(result?.standardErrorText.contains("HopStateMachine: takeBatch with no drain scheduled") == true)
    }

    @Test func aBatchOfferedByADrainThatWasNotScheduledTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = HopStateMachine<Int, Subscribers.Completion<TestError>, String>(downstream: "downstream")
            _ = machine.batchOffered(0, emptied: RingBuffer())
        }
        #expect(result?.standardErrorText.contains("HopStateMachine: batchOffered with no drain scheduled") == true)
    }
}
