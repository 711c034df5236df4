import Untangle
import XCTest

@testable import UntangleExtras

/// amb's race (racing, won by one source, ended), decision by decision.
final class AmbStateMachineTests: XCTestCase {
    private func racing(_ count: Int) -> (AmbStateMachine, [LoggingSubscription]) {
        var machine = AmbStateMachine(racing: count)
        let subscriptions = (0..<count).map { _ in LoggingSubscription() }
        for (index, subscription) in subscriptions.enumerated() {
            XCTAssertEqual(machine.innerSubscribed(index, subscription), Subscribers.Demand.none)
        }
        return (machine, subscriptions)
    }

    func testTheFirstValueWinsCancellingTheOthersAndOnlyTheWinnerIsAskedAndHeardAfterwards() {
        var (machine, subscriptions) = racing(3)
        XCTAssertEqual(identities(machine.request(.max(2))), identities(subscriptions), "every source while racing")
        guard case .deliverCancelling(let losers) = machine.innerValue(1) else { return XCTFail("wins") }
        XCTAssertEqual(identities(losers), identities(subscriptions[0], subscriptions[2]))
        XCTAssertEqual(machine.phase, .won(1))
        guard case .deliver = machine.innerValue(1) else { return XCTFail("the winner's next value") }
        guard case .drop = machine.innerValue(0) else { return XCTFail("a loser's value") }
        XCTAssertEqual(identities(machine.request(.max(1))), identities(subscriptions[1]))
        XCTAssertNil(machine.innerCompleted(0, Subscribers.Completion<TestError>.finished).completion, "a loser")
        XCTAssertEqual(machine.innerCompleted(1, Subscribers.Completion<TestError>.finished).completion, .finished)
        XCTAssertEqual(machine.phase, .ended)
        XCTAssertEqual(machine.request(.max(1)).count, 0, "nothing is asked of a completed winner")
    }

    func testACompletionWhileRacingWinsAndEndsTheRace() {
        var (machine, subscriptions) = racing(2)
        let effects = machine.innerCompleted(0, Subscribers.Completion<TestError>.failure(TestError(1)))
        XCTAssertEqual(effects.completion, .failure(TestError(1)))
        XCTAssertEqual(identities(effects.cancel), identities(subscriptions[1]))
        XCTAssertTrue(isSame(effects.released, subscriptions[0]), "the winner's subscription, released")
        guard case .drop = machine.innerValue(1) else { return XCTFail("ended") }
        XCTAssertNil(machine.cancelled())
    }

    func testALateSourceIsAskedForTheTotalWhileRacingAndRefusedOnceItLost() {
        var machine = AmbStateMachine(racing: 3)
        _ = machine.innerSubscribed(0, LoggingSubscription())
        _ = machine.request(.max(4))
        XCTAssertEqual(machine.innerSubscribed(1, LoggingSubscription()), .max(4))
        _ = machine.innerValue(0)
        XCTAssertNil(machine.innerSubscribed(2, LoggingSubscription()), "it lost before it subscribed")
    }

    func testTheCancelCancelsEverySourceOnce() {
        var (machine, subscriptions) = racing(2)
        XCTAssertEqual(identities(machine.cancelled()?.cancel ?? []), identities(subscriptions))
        XCTAssertNil(machine.cancelled())
        XCTAssertNil(machine.innerSubscribed(0, LoggingSubscription()))
    }
}
