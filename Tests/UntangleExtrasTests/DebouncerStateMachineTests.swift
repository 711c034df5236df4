import Testing
import Untangle
import XCTest

@testable import UntangleExtras

/// Debouncer's phases, tested as a pure state machine: idle, or a burst with its trailing action; generations that
/// make an earlier call's timer stale.
final class DebouncerStateMachineTests: XCTestCase {
    private let actions = NamedActions()

    func testTrailingKeepsTheLastActionOfTheBurstForTheLastTimer() {
        var machine = DebouncerStateMachine(edges: .trailing)
        let first = machine.call(actions.action("a"))
        XCTAssertEqual(first.generation, 1)
        XCTAssertFalse(first.runNow)
        XCTAssertNil(first.replaced)
        let second = machine.call(actions.action("b"))
        XCTAssertEqual(actions.run(second.replaced), ["a"], "the earlier action is replaced")
        XCTAssertNil(machine.fire(1), "the first call's timer is stale")
        XCTAssertEqual(actions.run(machine.fire(2)), ["b"])
        guard case .idle = machine.phase else { return XCTFail("the burst ended") }
        XCTAssertNil(machine.fire(2), "a timer firing again does nothing")
    }

    func testLeadingRunsTheFirstCallOfABurstAndDropsTheRest() {
        var machine = DebouncerStateMachine(edges: .leading)
        XCTAssertTrue(machine.call(actions.action("a")).runNow)
        let second = machine.call(actions.action("b"))
        XCTAssertFalse(second.runNow, "the burst goes on")
        XCTAssertNil(second.replaced)
        XCTAssertNil(machine.fire(2), "nothing trails")
        XCTAssertTrue(machine.call(actions.action("c")).runNow, "a new burst")
    }

    func testBothEdgesRunTheFirstAtOnceAndTheLastWhenCallsStop() {
        var machine = DebouncerStateMachine(edges: [.leading, .trailing])
        XCTAssertTrue(machine.call(actions.action("a")).runNow)
        XCTAssertNil(machine.fire(1), "a single call does not trail")
        XCTAssertTrue(machine.call(actions.action("b")).runNow)
        XCTAssertFalse(machine.call(actions.action("c")).runNow)
        XCTAssertEqual(actions.run(machine.fire(3)), ["c"])
    }

    func testCancelDropsThePendingActionAndMakesEveryTimerStale() {
        var machine = DebouncerStateMachine(edges: .trailing)
        _ = machine.call(actions.action("a"))
        XCTAssertEqual(actions.run(machine.cancel()), ["a"], "handed back to be released")
        XCTAssertNil(machine.fire(1))
        XCTAssertNil(machine.cancel(), "nothing left")
        XCTAssertEqual(
            machine.call(actions.action("b")).generation, 4, "every call and every cancel starts a generation")
    }
}

/// The event a debouncer can never send, trapped with its message (in a child process).
@Suite struct DebouncerStateMachineTrapTests {
    @Test func aFiringOfAGenerationNeverBegunTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = DebouncerStateMachine(edges: .trailing)
            _ = machine.fire(1)
        }
        #expect(result?.standardErrorText.contains("DebouncerStateMachine: fire for a generation not begun") == true)
    }
}
