import Testing
import XCTest

@testable import Untangle

/// autoconnect's reference count and connection phase (disconnected, connecting, connected), tested as a pure
/// state machine.
final class AutoconnectStateMachineTests: XCTestCase {
    private final class Connection: Cancellable {
        func cancel() {}
    }

    func testTheFirstSubscriberConnectsAndTheLastToCancelDisconnects() {
        var machine = AutoconnectStateMachine()
        XCTAssertTrue(machine.subscriberAdded(), "the first subscriber connects")
        XCTAssertFalse(machine.subscriberAdded(), "a connect is running")
        let connection = Connection()
        XCTAssertNil(machine.connected(connection), "kept while subscribers are attached")
        guard case .connected = machine.connection else { return XCTFail() }
        XCTAssertNil(machine.subscriberRemoved())
        XCTAssertTrue(isSame(machine.subscriberRemoved(), connection), "the last one disconnects")
        guard case .disconnected = machine.connection else { return XCTFail() }
        XCTAssertTrue(machine.subscriberAdded(), "a new first subscriber connects again")
    }

    func testAConnectThatReturnsAfterEverySubscriberLeftIsCancelledAtOnce() {
        var machine = AutoconnectStateMachine()
        _ = machine.subscriberAdded()
        XCTAssertNil(machine.subscriberRemoved(), "nothing to cancel while connecting")
        let connection = Connection()
        XCTAssertTrue(isSame(machine.connected(connection), connection))
        guard case .disconnected = machine.connection else { return XCTFail() }
    }

    func testASubscriberArrivingWhileConnectingIsServedByThatConnect() {
        var machine = AutoconnectStateMachine()
        _ = machine.subscriberAdded()
        _ = machine.subscriberRemoved()
        XCTAssertFalse(machine.subscriberAdded(), "the running connect serves it: two connects never overlap")
        XCTAssertNil(machine.connected(Connection()))
        XCTAssertEqual(machine.subscribers, 1)
    }
}

/// The events autoconnect can never send, each trapped with its message (in a child process).
@Suite struct AutoconnectStateMachineTrapTests {
    @Test func aRemovalWithNoSubscriberTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = AutoconnectStateMachine()
            _ = machine.subscriberRemoved()
        }
        #expect(
            result?.standardErrorText.contains("AutoconnectStateMachine: subscriberRemoved with no subscriber") == true)
    }

    @Test func aConnectionWithNoConnectRunningTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Connection: Cancellable { func cancel() {} }
            var machine = AutoconnectStateMachine()
            _ = machine.connected(Connection())
        }
        #expect(
            result?.standardErrorText.contains("AutoconnectStateMachine: connected while no connect was running")
                == true)
    }
}
