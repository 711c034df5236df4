import Testing
import XCTest

@testable import Untangle

/// collect(by time)'s phases, tested as a pure state machine: waiting for the upstream, running with its timer,
/// completing, ended; and its delivery: idle, a drain scheduled, moving (with or without a drain scheduled).
final class CollectByTimeStateMachineTests: XCTestCase {
    typealias Machine = CollectByTimeStateMachine<Int, TestError, String>

    private final class Timer: Cancellable {
        func cancel() {}
    }

    /// Subscribed, the timer started, the subscription handed over.
    private func running(count: Int? = nil, upstream: LoggingSubscription = .init()) -> Machine {
        var machine = Machine(downstream: "downstream", count: count)
        XCTAssertEqual(machine.subscribed(upstream), "downstream")
        XCTAssertNil(machine.timerStarted(Timer()))
        XCTAssertFalse(machine.handedOver(), "nothing to deliver yet")
        return machine
    }

    private func describe(_ next: (Machine.Step, refill: (Subscription, Subscribers.Demand)?)) -> String {
        var text: String
        switch next.0 {
        case .deliver(let downstream, let group, let byCount): text = "\(downstream) <- \(group) byCount \(byCount)"
        case .complete(let downstream, let completion, let discarded):
            text = "\(downstream) <- \(completion) discarding \(discarded.count)"
        case .stop: text = "stop"
        }
        if let (_, demand) = next.refill { text += " refill \(demand)" }
        return text
    }

    private func delivery(_ machine: Machine) -> String { "\(machine.delivery)" }

    func testTheSubscribingThreadMovesUntilItHandedTheSubscriptionOverThenADrainIsScheduledForWhatWaits() {
        let upstream = LoggingSubscription()
        var machine = Machine(downstream: "downstream", count: nil)
        XCTAssertEqual(machine.subscribed(upstream), "downstream")
        XCTAssertNil(machine.subscribed(LoggingSubscription()), "a second subscription is cancelled")
        XCTAssertEqual(delivery(machine), "moving")
        XCTAssertEqual(machine.receiveValue(1).0, .max(1))
        XCTAssertFalse(machine.tick(), "a tick during the hand-over only cuts the group")
        XCTAssertEqual(machine.request(.max(1)).scheduleDrain, false, "the hand-over is the mover")
        XCTAssertTrue(machine.handedOver(), "the group waiting for the hand-over gets a drain")
        XCTAssertEqual(delivery(machine), "drainScheduled")
        XCTAssertTrue(machine.drainStarts())
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)), "downstream <- [1] byCount false")
        XCTAssertEqual(describe(machine.nextStep(returned: .none, lastByCount: false)), "stop")
        XCTAssertEqual(delivery(machine), "idle")
    }

    func testATickCutsTheCollectedValuesAndDeliversThemWithDemand() {
        var machine = running()
        XCTAssertEqual(machine.request(.max(1)).upstream?.1, .max(1), "by time: one value per request")
        _ = machine.receiveValue(1)
        _ = machine.receiveValue(2)
        XCTAssertTrue(machine.tick(), "the tick becomes the mover")
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)), "downstream <- [1, 2] byCount false")
        XCTAssertEqual(
            describe(machine.nextStep(returned: .max(3), lastByCount: false)), "stop",
            "demand a timer group returns is counted, not passed upstream")
        _ = machine.receiveValue(3)
        XCTAssertTrue(machine.tick())
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)), "downstream <- [3] byCount false")
    }

    func testATickWhileADrainIsScheduledMovesAndTheDrainThenFindsSomebodyMoving() {
        var machine = running(count: 2)
        _ = machine.request(.max(2))
        _ = machine.receiveValue(1)
        XCTAssertEqual(machine.receiveValue(2).scheduleDrain, true, "a group cut by count schedules a drain")
        XCTAssertEqual(machine.receiveValue(3).scheduleDrain, false)
        XCTAssertTrue(machine.tick(), "the tick moves before the drain runs")
        XCTAssertEqual(delivery(machine), "movingWithDrainScheduled")
        XCTAssertFalse(machine.drainStarts(), "somebody moves already")
        XCTAssertEqual(delivery(machine), "moving")
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)), "downstream <- [1, 2] byCount true")
        XCTAssertEqual(
            describe(machine.nextStep(returned: .max(1), lastByCount: true)),
            "downstream <- [3] byCount false refill max(2)",
            "demand returned from a count group goes upstream, times the count")
        XCTAssertEqual(describe(machine.nextStep(returned: .none, lastByCount: false)), "stop")
    }

    func testByTimeOrCountRequestsTheCountTimesTheGroups() {
        var machine = running(count: 3)
        XCTAssertEqual(machine.request(.max(2)).upstream?.1, .max(6))
    }

    func testFinishedFollowsTheLastGroupWithoutDemand() {
        var machine = running()
        _ = machine.receiveValue(1)
        guard let ending = machine.receiveCompletion(.finished) else { return XCTFail() }
        XCTAssertNotNil(ending.timer, "the timer stops")
        XCTAssertTrue(ending.scheduleDrain)
        guard case .completing = machine.phase else { return XCTFail() }
        XCTAssertNil(machine.receiveCompletion(.finished), "a second completion is ignored")
        XCTAssertEqual(machine.receiveValue(2).0, .none, "so is a value after it")
        XCTAssertTrue(machine.drainStarts())
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)), "stop", "the group waits for demand")
        XCTAssertEqual(machine.request(.max(1)).scheduleDrain, true)
        XCTAssertNil(machine.request(.max(1)).upstream, "the upstream has completed")
        XCTAssertTrue(machine.drainStarts())
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)), "downstream <- [1] byCount false")
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)), "downstream <- finished discarding 0")
        guard case .ended = machine.phase else { return XCTFail() }
    }

    func testAFailureDropsTheCollectedValuesAndTheGroupsWithoutDemand() {
        var machine = running(count: 1)
        _ = machine.receiveValue(1)
        guard let ending = machine.receiveCompletion(.failure(TestError(4))) else { return XCTFail() }
        XCTAssertEqual(ending.dropped, [])
        XCTAssertTrue(machine.drainStarts())
        XCTAssertEqual(
            describe(machine.nextStep(returned: .none, lastByCount: false)),
            "downstream <- failure(TestError(4)) discarding 1")
    }

    func testACancelStopsEverythingAndIsAnsweredOnce() {
        let upstream = LoggingSubscription()
        var machine = running(upstream: upstream)
        _ = machine.receiveValue(1)
        _ = machine.request(.max(1))
        XCTAssertTrue(machine.tick())
        guard let cancellation = machine.cancel() else { return XCTFail() }
        XCTAssertEqual(cancellation.upstream?.combineIdentifier, upstream.combineIdentifier)
        XCTAssertNotNil(cancellation.timer)
        XCTAssertEqual(cancellation.released.2.count, 1)
        XCTAssertEqual(describe(machine.nextStep(returned: .none, lastByCount: false)), "stop", "the mover stops")
        XCTAssertNil(machine.cancel())
        XCTAssertFalse(machine.tick())
        XCTAssertFalse(machine.request(.max(1)).scheduleDrain)
        XCTAssertNotNil(machine.timerStarted(Timer()), "a timer started late is handed back")
    }

    func testACancelBeforeTheSubscriptionRefusesItLater() {
        var machine = Machine(downstream: "downstream", count: nil)
        XCTAssertNil(machine.cancel()?.upstream)
        XCTAssertNil(machine.subscribed(LoggingSubscription()))
    }
}

/// The events collect(by time)'s subscription can never send, each trapped with its message (in a child process).
@Suite struct CollectByTimeStateMachineTrapTests {
    @Test func aStepByAThreadThatIsNotTheMoverTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = CollectByTimeStateMachine<Int, TestError, String>(downstream: "downstream", count: nil)
            _ = machine.nextStep(returned: .none, lastByCount: false)
        }
        #expect(
            result?.standardErrorText.contains("CollectByTimeStateMachine: nextStep by a thread that is not the mover")
                == true)
    }

    @Test func aDrainThatWasNotScheduledTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = CollectByTimeStateMachine<Int, TestError, String>(downstream: "downstream", count: nil)
            _ = machine.drainStarts()
        }
        #expect(
            result?.standardErrorText.contains("CollectByTimeStateMachine: drainStarts with no drain scheduled") == true
        )
    }

    @Test func aHandOverThatWasNotUnderwayTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = CollectByTimeStateMachine<Int, TestError, String>(downstream: "downstream", count: nil)
            _ = machine.handedOver()
        }
        #expect(result?.standardErrorText.contains("CollectByTimeStateMachine: handedOver while not moving") == true)
    }
}
