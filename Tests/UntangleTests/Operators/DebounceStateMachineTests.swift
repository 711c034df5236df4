import Testing
import XCTest

@testable import Untangle

/// debounce's phases, tested as a pure state machine: waiting for the upstream, running, ended; the timer of the
/// current generation being created or armed; stale timers and firings.
final class DebounceStateMachineTests: XCTestCase {
    typealias Machine = DebounceStateMachine<Int, String>

    private final class Timer: Cancellable {
        func cancel() {}
    }

    private func running(_ upstream: LoggingSubscription = .init(), demand: Int = 0) -> Machine {
        var machine = Machine(downstream: "downstream")
        XCTAssertEqual(machine.receiveSubscription(upstream), "downstream")
        machine.addDemand(.max(demand))
        return machine
    }

    private func describe(_ firing: Machine.Firing) -> String {
        switch firing {
        case .ignore(let cancel): return "ignore, cancel \(cancel == nil ? "nothing" : "the timer")"
        case .deliver(let value, let cancel):
            return "deliver \(value.map(String.init) ?? "nothing"), cancel \(cancel == nil ? "nothing" : "the timer")"
        }
    }

    func testTheSubscriptionIsAcceptedOnceAndDemandCountsOnlyWhileRunning() {
        var machine = Machine(downstream: "downstream")
        machine.addDemand(.max(1))
        XCTAssertEqual(machine.demand, .none, "no demand before the subscription")
        XCTAssertNil(machine.receiveValue(1), "nor values")
        XCTAssertEqual(machine.receiveSubscription(LoggingSubscription()), "downstream")
        XCTAssertNil(machine.receiveSubscription(LoggingSubscription()))
        machine.addDemand(.max(2))
        XCTAssertNil(machine.downstreamReturned(.max(1)), "returned demand is counted here")
        XCTAssertEqual(machine.demand, .max(3))
    }

    func testEachValueStartsAGenerationWhoseTimerDeliversTheLatestValue() {
        var machine = running(demand: 1)
        let timer = Timer()
        guard let first = machine.receiveValue(1) else { return XCTFail() }
        XCTAssertEqual(first.generation, 1)
        XCTAssertNil(first.stale)
        XCTAssertNil(first.replaced)
        XCTAssertNil(machine.timerArmed(timer, generation: 1))
        guard let second = machine.receiveValue(2) else { return XCTFail() }
        XCTAssertTrue(isSame(second.stale, timer), "the older generation's timer is cancelled")
        XCTAssertEqual(second.replaced, 1)
        XCTAssertEqual(describe(machine.fire(generation: 1)), "ignore, cancel nothing", "a stale firing")
        let late = Timer()
        XCTAssertTrue(isSame(machine.timerArmed(late, generation: 1), late), "a stale timer is handed back")
        XCTAssertNil(machine.timerArmed(Timer(), generation: 2))
        XCTAssertEqual(describe(machine.fire(generation: 2)), "deliver 2, cancel the timer")
        XCTAssertEqual(machine.demand, .none)
        XCTAssertEqual(machine.currentValue, 2, "kept after delivery (the mirror shows it)")
        XCTAssertEqual(describe(machine.fire(generation: 2)), "ignore, cancel nothing", "the repeating timer again")
    }

    func testADueValueWithoutDemandIsDropped() {
        var machine = running(demand: 0)
        _ = machine.receiveValue(1)
        XCTAssertNil(machine.timerArmed(Timer(), generation: 1))
        XCTAssertEqual(describe(machine.fire(generation: 1)), "deliver nothing, cancel the timer")
    }

    func testATimerFiringInsideItsOwnScheduleCallDeliversAndItsLateArmingIsHandedBack() {
        var machine = running(demand: 1)
        _ = machine.receiveValue(1)
        XCTAssertEqual(describe(machine.fire(generation: 1)), "deliver 1, cancel nothing")
        let timer = Timer()
        XCTAssertTrue(isSame(machine.timerArmed(timer, generation: 1), timer))
    }

    func testTheEndTakesTheTimerTheDownstreamAndTheValueOnce() {
        let upstream = LoggingSubscription()
        var machine = running(upstream, demand: 1)
        _ = machine.receiveValue(1)
        let timer = Timer()
        _ = machine.timerArmed(timer, generation: 1)
        guard let ended = machine.end() else { return XCTFail() }
        XCTAssertEqual(ended.upstream?.combineIdentifier, upstream.combineIdentifier)
        XCTAssertNil(ended.own, "held only while finishing")
        XCTAssertTrue(isSame(ended.timer, timer))
        XCTAssertEqual(ended.downstream, "downstream")
        XCTAssertEqual(ended.value, 1)
        XCTAssertNil(machine.downstream)
        XCTAssertNil(machine.currentValue)
        XCTAssertNil(machine.end())
        XCTAssertEqual(describe(machine.fire(generation: 1)), "ignore, cancel nothing")
        XCTAssertNil(machine.receiveValue(2))
    }

    // MARK: - Delivering the pending value on finish (UntangleExtras' RxSwift-style debounce)

    private func delivering(_ upstream: LoggingSubscription = .init(), demand: Int) -> Machine {
        var machine = Machine(downstream: "downstream", deliversPendingValueOnFinish: true)
        XCTAssertEqual(machine.receiveSubscription(upstream), "downstream")
        machine.addDemand(.max(demand))
        return machine
    }

    private func describe(_ completing: Machine.Completing?) -> String {
        switch completing {
        case nil: return "over"
        case .end(let timer, let downstream, let value)?:
            return "end, cancel \(timer == nil ? "nothing" : "the timer"), release \(downstream ?? "nothing") and "
                + "\(value.map(String.init) ?? "no value")"
        case .deliverPendingValue(let timer, let upstream)?:
            return "deliver the pending value, cancel \(timer == nil ? "nothing" : "the timer"), release "
                + (upstream is LoggingSubscription ? "the upstream" : "?")
        }
    }

    private func describe(_ check: Machine.FinishingCheck?) -> String {
        switch check {
        case nil: return "over"
        case .awaitDemand?: return "await demand"
        case .deliver(let value, let released)?: return "deliver \(value), release \(released.0)"
        }
    }

    func testWithoutTheOptionAFinishEndsAndDropsThePendingValue() {
        var machine = running(demand: 1)
        _ = machine.receiveValue(1)
        XCTAssertNil(machine.timerArmed(Timer(), generation: 1))
        XCTAssertEqual(
            describe(machine.upstreamCompleted(finished: true, own: LoggingSubscription())),
            "end, cancel the timer, release downstream and 1")
        XCTAssertNil(machine.downstream)
        XCTAssertEqual(describe(machine.upstreamCompleted(finished: true, own: LoggingSubscription())), "over")
    }

    func testAFinishWithAPendingValueAndDemandDeliversItThenEnds() {
        var machine = delivering(demand: 1)
        _ = machine.receiveValue(1)
        _ = machine.receiveValue(2)
        XCTAssertNil(machine.timerArmed(Timer(), generation: 2))
        let own = LoggingSubscription()
        XCTAssertEqual(
            describe(machine.upstreamCompleted(finished: true, own: own)),
            "deliver the pending value, cancel the timer, release the upstream")
        XCTAssertEqual(machine.downstream, "downstream", "still there while finishing")
        XCTAssertNil(machine.receiveValue(3), "nothing comes after the finish")
        XCTAssertEqual(describe(machine.fire(generation: 2)), "ignore, cancel nothing", "a late firing of its timer")
        XCTAssertEqual(describe(machine.finishingCheck()), "deliver 2, release downstream")
        XCTAssertEqual(machine.demand, .none, "the value used the demand")
        XCTAssertNil(machine.downstream)
        XCTAssertNil(machine.currentValue)
        XCTAssertNil(machine.end())
        XCTAssertEqual(describe(machine.finishingCheck()), "over")
    }

    func testAFinishWithAPendingValueWaitsForDemandAndTheRequestThatBringsItSchedulesTheCheckAgain() {
        var machine = delivering(demand: 0)
        _ = machine.receiveValue(1)
        XCTAssertNil(machine.timerArmed(Timer(), generation: 1))
        let own = LoggingSubscription()
        _ = machine.upstreamCompleted(finished: true, own: own)
        XCTAssertFalse(machine.addDemand(.none), "the check is already scheduled")
        XCTAssertEqual(describe(machine.finishingCheck()), "await demand")
        XCTAssertFalse(machine.addDemand(.none), "no demand: nothing to check")
        XCTAssertTrue(
            isSame(machine.downstreamReturned(.max(1)), own),
            "demand returned from an earlier value goes to the operator's request, which schedules the check")
        XCTAssertEqual(machine.demand, .none, "not counted twice: the request counts it")
        XCTAssertTrue(machine.addDemand(.max(2)), "schedule the check")
        XCTAssertFalse(machine.addDemand(.max(1)), "scheduled once")
        XCTAssertNil(machine.downstreamReturned(.max(1)), "counted here while the check is scheduled")
        XCTAssertEqual(machine.demand, .max(4))
        XCTAssertEqual(describe(machine.finishingCheck()), "deliver 1, release downstream")
        XCTAssertEqual(machine.demand, .max(3))
    }

    func testACancelWhileFinishingReleasesTheDownstreamTheValueAndTheOperatorsSubscription() {
        var machine = delivering(demand: 0)
        _ = machine.receiveValue(1)
        _ = machine.upstreamCompleted(finished: true, own: LoggingSubscription())
        XCTAssertEqual(describe(machine.finishingCheck()), "await demand")
        guard let ended = machine.end() else { return XCTFail() }
        XCTAssertNil(ended.upstream, "the upstream already finished")
        XCTAssertNil(ended.timer, "cancelled at the finish")
        XCTAssertEqual(ended.downstream, "downstream")
        XCTAssertEqual(ended.value, 1)
        XCTAssertNotNil(ended.own)
        XCTAssertFalse(machine.addDemand(.max(1)))
        XCTAssertEqual(describe(machine.finishingCheck()), "over", "the check scheduled before the cancel")
    }

    func testAFailureOrAFinishWithNothingPendingEndsAtOnce() {
        var failing = delivering(demand: 1)
        _ = failing.receiveValue(1)
        XCTAssertEqual(
            describe(failing.upstreamCompleted(finished: false, own: LoggingSubscription())),
            "end, cancel nothing, release downstream and 1")
        var delivered = delivering(demand: 1)
        _ = delivered.receiveValue(1)
        XCTAssertEqual(describe(delivered.fire(generation: 1)), "deliver 1, cancel nothing")
        XCTAssertEqual(
            describe(delivered.upstreamCompleted(finished: true, own: LoggingSubscription())),
            "end, cancel nothing, release downstream and 1", "a value already delivered is not sent again")
        var dropped = delivering(demand: 0)
        _ = dropped.receiveValue(1)
        XCTAssertEqual(describe(dropped.fire(generation: 1)), "deliver nothing, cancel nothing")
        XCTAssertEqual(
            describe(dropped.upstreamCompleted(finished: true, own: LoggingSubscription())),
            "end, cancel nothing, release downstream and 1", "nor a value dropped when due")
        var empty = delivering(demand: 1)
        XCTAssertEqual(
            describe(empty.upstreamCompleted(finished: true, own: LoggingSubscription())),
            "end, cancel nothing, release downstream and no value")
    }
}

/// The events debounce's subscription can never send, each trapped with its message (in a child process).
@Suite struct DebounceStateMachineTrapTests {
    @Test func aFiringOfAGenerationNeverBegunTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = DebounceStateMachine<Int, String>(downstream: "downstream")
            _ = machine.receiveSubscription(LoggingSubscription())
            _ = machine.fire(generation: 1)
        }
        #expect(
            result?.standardErrorText.contains("DebounceStateMachine: a timer fired for a generation not begun") == true
        )
    }

    @Test func aSecondTimerForOneGenerationTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Timer: Cancellable { func cancel() {} }
            var machine = DebounceStateMachine<Int, String>(downstream: "downstream")
            _ = machine.receiveSubscription(LoggingSubscription())
            _ = machine.receiveValue(1)
            _ = machine.timerArmed(Timer(), generation: 1)
            _ = machine.timerArmed(Timer(), generation: 1)
        }
        #expect(result?.standardErrorText.contains("DebounceStateMachine: timerArmed twice for one generation") == true)
    }

    @Test func aFinishingCheckWhileAwaitingDemandTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = DebounceStateMachine<Int, String>(
                downstream: "downstream", deliversPendingValueOnFinish: true)
            _ = machine.receiveSubscription(LoggingSubscription())
            _ = machine.receiveValue(1)
            _ = machine.upstreamCompleted(finished: true, own: LoggingSubscription())
            _ = machine.finishingCheck()
            _ = machine.finishingCheck()
        }
        #expect(
            result?.standardErrorText.contains("DebounceStateMachine: a finishing check in finishingAwaitingDemand")
                == true)
    }
}
