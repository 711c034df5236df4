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
        XCTAssertEqual(ended.upstream.combineIdentifier, upstream.combineIdentifier)
        XCTAssertTrue(isSame(ended.timer, timer))
        XCTAssertEqual(ended.downstream, "downstream")
        XCTAssertEqual(ended.value, 1)
        XCTAssertNil(machine.downstream)
        XCTAssertNil(machine.currentValue)
        XCTAssertNil(machine.end())
        XCTAssertEqual(describe(machine.fire(generation: 1)), "ignore, cancel nothing")
        XCTAssertNil(machine.receiveValue(2))
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
}
