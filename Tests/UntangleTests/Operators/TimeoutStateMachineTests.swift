import Testing
import XCTest

@testable import Untangle

/// timeout's phases, tested as a pure state machine: waiting for the upstream, running (the armed timer, the clock
/// waiting for the first request or not), ended; and the generations that make a timer or a firing stale.
final class TimeoutStateMachineTests: XCTestCase {
    typealias Machine = TimeoutStateMachine<String>

    private final class Timer: Cancellable {
        func cancel() {}
    }

    /// Subscribed, its first timer armed.
    private func running(_ upstream: LoggingSubscription = .init(), timer: Timer = .init()) -> Machine {
        var machine = Machine(downstream: "downstream")
        guard let arm = machine.receiveSubscription(upstream) else {
            XCTFail("the first subscription arms the clock")
            return machine
        }
        XCTAssertNil(arm.stale)
        XCTAssertEqual(arm.downstream, "downstream")
        XCTAssertNil(machine.timerArmed(timer, generation: arm.generation))
        return machine
    }

    func testTheSubscriptionStartsTheClockAndASecondOneIsRefused() {
        var machine = running()
        XCTAssertEqual(machine.generation, 1)
        XCTAssertNil(machine.receiveSubscription(LoggingSubscription()))
        XCTAssertTrue(machine.isRunning)
    }

    func testTheFirstRequestRestartsTheClockOnceAndEveryRequestIsForwarded() {
        let upstream = LoggingSubscription()
        let first = Timer()
        var machine = running(upstream, timer: first)
        guard let (subscription, rearm) = machine.request() else { return XCTFail() }
        XCTAssertEqual(subscription.combineIdentifier, upstream.combineIdentifier)
        XCTAssertTrue(isSame(rearm?.stale, first), "the subscription's timer is replaced")
        XCTAssertEqual(rearm?.generation, 2)
        guard case .firstRequestSeen = machine.clock else { return XCTFail() }
        XCTAssertNil(machine.request()?.rearm, "later requests leave the clock alone")
        XCTAssertEqual(machine.downstreamReturned(.max(1))?.combineIdentifier, upstream.combineIdentifier)
    }

    func testEveryValueRestartsTheClockAndATimerOfAnOlderGenerationIsHandedBack() {
        var machine = running()
        let late = Timer()
        guard let rearm = machine.receiveValue() else { return XCTFail() }
        XCTAssertNotNil(rearm.stale)
        XCTAssertNotNil(machine.receiveValue(), "a second value before the timer was armed")
        XCTAssertTrue(isSame(machine.timerArmed(late, generation: rearm.generation), late), "stale: cancelled at once")
        XCTAssertNil(machine.end(firing: rearm.generation), "a stale firing ends nothing")
        XCTAssertTrue(machine.isRunning)
    }

    func testTheCurrentFiringEndsTheStream() {
        let upstream = LoggingSubscription()
        let timer = Timer()
        var machine = running(upstream, timer: timer)
        guard let ended = machine.end(firing: 1) else { return XCTFail("the current timer fired") }
        XCTAssertEqual(ended.upstream.combineIdentifier, upstream.combineIdentifier)
        XCTAssertTrue(isSame(ended.timer, timer))
        XCTAssertEqual(ended.downstream, "downstream")
        XCTAssertFalse(machine.isRunning)
        XCTAssertNil(machine.end(), "the stream ends once")
        XCTAssertNil(machine.receiveValue())
        XCTAssertNil(machine.request())
        XCTAssertNil(machine.downstreamReturned(.max(1)))
        XCTAssertTrue(machine.timerArmed(Timer(), generation: machine.generation) != nil, "no timer after the end")
    }

    func testTheCompletionStopsTheClockAndTheStreamRunsUntilItIsDelivered() {
        var machine = running()
        guard let stop = machine.receiveCompletion() else { return XCTFail() }
        XCTAssertNotNil(stop.stale)
        XCTAssertTrue(machine.isRunning, "values scheduled before the completion are still delivered")
        XCTAssertNil(machine.end(firing: stop.generation - 1), "the stopped timer's firing is stale")
        XCTAssertNotNil(machine.end(), "the scheduled completion ends the stream")
    }

    func testACancelBeforeTheSubscriptionRefusesItLater() {
        var machine = Machine(downstream: "downstream")
        XCTAssertNil(machine.end())
        XCTAssertNil(machine.receiveValue())
        XCTAssertNotNil(machine.receiveSubscription(LoggingSubscription()), "nothing had started")
    }
}

/// The events timeout's subscription can never send, each trapped with its message (in a child process).
@Suite struct TimeoutStateMachineTrapTests {
    @Test func aFiringOfAGenerationNeverBegunTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = TimeoutStateMachine<String>(downstream: "downstream")
            _ = machine.receiveSubscription(LoggingSubscription())
            _ = machine.end(firing: 2)
        }
        #expect(
            result?.standardErrorText.contains("TimeoutStateMachine: a timer fired for a generation not begun") == true)
    }

    @Test func aSecondTimerForOneGenerationTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Timer: Cancellable { func cancel() {} }
            var machine = TimeoutStateMachine<String>(downstream: "downstream")
            _ = machine.receiveSubscription(LoggingSubscription())
            _ = machine.timerArmed(Timer(), generation: 1)
            _ = machine.timerArmed(Timer(), generation: 1)
        }
        #expect(result?.standardErrorText.contains("TimeoutStateMachine: timerArmed twice for one generation") == true)
    }
}
