import Testing
import XCTest

@testable import Untangle

/// throttle's emission phase, tested as a pure state machine: what waits for the scheduled emission (nothing, a
/// value, a completion, or a value then the completion) and when the last value was emitted (never, at a time, or
/// while an emission reads the clock).
final class ThrottleStateMachineTests: XCTestCase {
    typealias Machine = ThrottleStateMachine<Int, Subscribers.Completion<Never>, Int>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private func subscribed(demand: Int = 10) -> Machine {
        var machine = Machine()
        XCTAssertTrue(machine.receiveSubscription(Token(), now: 0))
        machine.addDemand(.max(demand))
        return machine
    }

    private func scheduledAt(_ decision: Machine.ValueDecision) -> Int?? {
        if case .schedule(let at) = decision { return .some(at) }
        return nil
    }

    private func released(_ decision: Machine.ValueDecision) -> Int?? {
        if case .none(let released) = decision { return .some(released) }
        return nil
    }

    func testTheFirstValueIsScheduledAtOnceAndItsEmissionReadsTheClock() {
        var machine = subscribed()
        XCTAssertEqual(scheduledAt(machine.receiveValue(1, now: 0, interval: 5, latest: true)), .some(nil))
        let emission = machine.emissionFired()
        XCTAssertEqual(emission.value, 1)
        XCTAssertNil(emission.completion)
        XCTAssertTrue(emission.readClock)
        machine.emitted(at: 2)
        XCTAssertEqual(scheduledAt(machine.receiveValue(2, now: 3, interval: 5, latest: true)), .some(7))
    }

    func testAValueArrivingWhileTheClockIsReadCountsFromItsOwnArrival() {
        var machine = subscribed()
        _ = machine.receiveValue(1, now: 0, interval: 5, latest: true)
        _ = machine.emissionFired()
        XCTAssertEqual(scheduledAt(machine.receiveValue(2, now: 4, interval: 5, latest: true)), .some(9))
    }

    func testAWaitingValueIsReplacedWithLatestAndKeptWithout() {
        var machine = subscribed()
        _ = machine.receiveValue(1, now: 0, interval: 5, latest: true)
        XCTAssertEqual(released(machine.receiveValue(2, now: 1, interval: 5, latest: true)), .some(1))
        XCTAssertEqual(released(machine.receiveValue(3, now: 1, interval: 5, latest: false)), .some(3))
        XCTAssertEqual(machine.emissionFired().value, 2)
    }

    func testACompletionArrivingWhileAValueWaitsIsDeliveredRightAfterItWithoutReadingTheClock() {
        var machine = subscribed()
        _ = machine.receiveValue(1, now: 0, interval: 5, latest: true)
        XCTAssertFalse(machine.receiveCompletion(.finished, now: 1), "it waits for the scheduled value")
        let emission = machine.emissionFired()
        XCTAssertEqual(emission.value, 1)
        XCTAssertNotNil(emission.completion)
        XCTAssertFalse(emission.readClock)
        guard case .terminal = machine.upstream else { return XCTFail("ended") }
        let late = machine.emissionFired()
        XCTAssertNil(late.value)
        XCTAssertNil(late.completion)
    }

    func testACompletionWithNothingWaitingIsScheduledAtOnce() {
        var machine = subscribed()
        XCTAssertTrue(machine.receiveCompletion(.finished, now: 1))
        let emission = machine.emissionFired()
        XCTAssertNil(emission.value)
        XCTAssertNotNil(emission.completion)
    }

    func testAValueWithoutDemandIsDroppedAndNothingIsScheduled() {
        var machine = subscribed(demand: 0)
        XCTAssertEqual(released(machine.receiveValue(1, now: 0, interval: 5, latest: true)), .some(1))
        machine.addDemand(.max(1))
        XCTAssertEqual(
            scheduledAt(machine.receiveValue(2, now: 1, interval: 5, latest: true)), .some(nil),
            "nothing waited: the next value with demand is scheduled at once")
    }

    func testCancelHandsBackTheWaitingValueAndDropsTheCompletion() {
        var machine = subscribed()
        _ = machine.receiveValue(1, now: 0, interval: 5, latest: true)
        _ = machine.receiveCompletion(.finished, now: 1)
        XCTAssertEqual(machine.cancel()?.pending, 1)
        XCTAssertNil(machine.cancel())
        XCTAssertNil(machine.emissionFired().completion)
    }

    /// The emission phase takes the memory the optionals and the flag it replaced took (105 bytes).
    func testTheEmissionPhaseTakesNoMoreMemoryThanWhatItReplaced() {
        XCTAssertEqual(MemoryLayout<ThrottleStateMachine<Int, Subscribers.Completion<Error>, Int>>.size, 105)
    }
}

/// The event throttle's subscription can never send, trapped with its message (in a child process).
@Suite struct ThrottleStateMachineTrapTests {
    @Test func anEmissionWithNothingWaitingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = ThrottleStateMachine<Int, Subscribers.Completion<Never>, Int>()
            _ = machine.receiveSubscription(LoggingSubscription(), now: 0)
            _ = machine.emissionFired()
        }
        #expect(result?.standardErrorText.contains("ThrottleStateMachine: emissionFired with nothing waiting") == true)
    }
}
