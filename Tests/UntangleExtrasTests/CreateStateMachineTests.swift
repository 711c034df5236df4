import Testing
import Untangle
import XCTest

@testable import UntangleExtras

/// The phase of a `Publishers.Create` producer's teardown, tested as a pure state machine: the producer running,
/// its teardown returned, the subscription ended.
final class CreateStateMachineTests: XCTestCase {
    private final class Teardown: Cancellable {
        func cancel() {}
    }

    func testATeardownReturnedBeforeTheEndRunsAtTheEnd() {
        var machine = CreateStateMachine.running
        let teardown = Teardown()
        XCTAssertNil(machine.bodyReturned(teardown), "kept for the end")
        XCTAssertFalse(machine.isEnded)
        XCTAssertTrue(isSame(machine.end(), teardown))
        XCTAssertTrue(machine.isEnded)
        XCTAssertNil(machine.end(), "the end comes once")
    }

    func testATeardownReturnedAfterTheEndRunsAtOnce() {
        var machine = CreateStateMachine.running
        XCTAssertNil(machine.end(), "no teardown yet")
        let teardown = Teardown()
        XCTAssertTrue(isSame(machine.bodyReturned(teardown), teardown))
    }
}

/// The event a Create subscription can never send, trapped with its message (in a child process).
@Suite struct CreateStateMachineTrapTests {
    @Test func aProducerReturningTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Teardown: Cancellable { func cancel() {} }
            var machine = CreateStateMachine.running
            _ = machine.bodyReturned(Teardown())
            _ = machine.bodyReturned(Teardown())
        }
        #expect(result?.standardErrorText.contains("CreateStateMachine: bodyReturned twice") == true)
    }
}
