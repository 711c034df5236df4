import Testing
import Untangle
import XCTest

@testable import UntangleExtras

/// Throttler's phases, tested as a pure state machine: no window, or a window open with its trailing action;
/// generations that make a window opened before a cancel stale.
final class ThrottlerStateMachineTests: XCTestCase {
    private let actions = NamedActions()

    func testTheFirstCallRunsAndOpensAWindowWhoseEndRunsTheLatestCall() {
        var machine = ThrottlerStateMachine(edges: [.leading, .trailing], latest: true)
        let first = machine.call(actions.action("a"))
        XCTAssertEqual(first.openedWindow, 0)
        XCTAssertTrue(first.runNow)
        let second = machine.call(actions.action("b"))
        XCTAssertNil(second.openedWindow, "the window is open")
        XCTAssertFalse(second.runNow)
        XCTAssertEqual(
            actions.run(machine.call(actions.action("c")).released), ["b"], "the latest replaces the pending one")
        XCTAssertEqual(actions.run(machine.windowEnded(0)), ["c"], "the trailing action runs and opens the next window")
        guard case .open(nil) = machine.phase else { return XCTFail() }
        XCTAssertNil(machine.windowEnded(0), "nothing waited: the window closes")
        guard case .closed = machine.phase else { return XCTFail() }
    }

    func testWithoutLatestTheFirstCallOfTheWindowIsKept() {
        var machine = ThrottlerStateMachine(edges: .trailing, latest: false)
        let first = machine.call(actions.action("a"))
        XCTAssertEqual(first.openedWindow, 0)
        XCTAssertFalse(first.runNow, "trailing only: kept for the window's end")
        XCTAssertEqual(actions.run(machine.call(actions.action("b")).released), ["b"], "the newer call is dropped")
        XCTAssertEqual(actions.run(machine.windowEnded(0)), ["a"])
    }

    func testLeadingOnlyDropsTheCallsDuringTheWindow() {
        var machine = ThrottlerStateMachine(edges: .leading, latest: true)
        XCTAssertTrue(machine.call(actions.action("a")).runNow)
        XCTAssertEqual(actions.run(machine.call(actions.action("b")).released), ["b"])
        XCTAssertNil(machine.windowEnded(0))
        XCTAssertTrue(machine.call(actions.action("c")).runNow, "a new window")
    }

    func testCancelDropsThePendingActionClosesTheWindowAndMakesItsEndStale() {
        var machine = ThrottlerStateMachine(edges: [.leading, .trailing], latest: true)
        _ = machine.call(actions.action("a"))
        _ = machine.call(actions.action("b"))
        XCTAssertEqual(actions.run(machine.cancel()), ["b"])
        XCTAssertNil(machine.windowEnded(0), "the window opened before the cancel is stale")
        XCTAssertEqual(machine.call(actions.action("c")).openedWindow, 1, "the next call opens a window of its own")
    }
}

/// The event a throttler can never send, trapped with its message (in a child process).
@Suite struct ThrottlerStateMachineTrapTests {
    @Test func aWindowEndOfAGenerationNeverBegunTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = ThrottlerStateMachine(edges: .leading, latest: true)
            _ = machine.windowEnded(1)
        }
        #expect(
            result?.standardErrorText.contains("ThrottlerStateMachine: windowEnded for a generation not begun") == true)
    }
}
