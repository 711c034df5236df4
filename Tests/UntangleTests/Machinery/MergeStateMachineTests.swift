import Testing
import XCTest

@testable import Untangle

/// merge's phases (running with the upstreams that have not finished, ended), decision by decision.
final class MergeStateMachineTests: XCTestCase {
    private func running(_ count: Int) -> (MergeStateMachine, [LoggingSubscription]) {
        var machine = MergeStateMachine(upstreamCount: count)
        let subscriptions = (0..<count).map { _ in LoggingSubscription() }
        for (index, subscription) in subscriptions.enumerated() {
            XCTAssertEqual(machine.innerSubscribed(index, subscription), Subscribers.Demand.none)
        }
        return (machine, subscriptions)
    }

    func testTheLastUpstreamToFinishFinishesTheMergeAndEachFinishedSubscriptionIsReleased() {
        var (machine, subscriptions) = running(2)
        XCTAssertEqual(identities(machine.request(.max(2))), identities(subscriptions))
        let first = machine.innerCompleted(0, Subscribers.Completion<TestError>.finished)
        XCTAssertNil(first.completion)
        XCTAssertTrue(isSame(first.released, subscriptions[0]), "released after unlocking")
        XCTAssertNil(machine.innerCompleted(0, Subscribers.Completion<TestError>.finished).completion, "twice")
        guard case .running(unfinished: 1) = machine.phase else { return XCTFail("one left: \(machine.phase)") }
        XCTAssertEqual(identities(machine.request(.max(1))), identities(subscriptions[1]))
        let last = machine.innerCompleted(1, Subscribers.Completion<TestError>.finished)
        XCTAssertEqual(last.completion, .finished)
        guard case .ended = machine.phase else { return XCTFail("ended") }
        XCTAssertNil(machine.cancelled(), "a cancel after the end does nothing")
    }

    func testAFailureEndsTheMergeCancellingEveryUpstreamTheFailedOneToo() {
        var (machine, subscriptions) = running(3)
        let failure = machine.innerCompleted(1, Subscribers.Completion<TestError>.failure(TestError(1)))
        XCTAssertEqual(failure.completion, .failure(TestError(1)))
        XCTAssertEqual(identities(failure.cancel), identities(subscriptions), "as Apple's merge")
        XCTAssertNil(machine.innerCompleted(0, Subscribers.Completion<TestError>.failure(TestError(2))).completion)
        XCTAssertEqual(machine.request(.max(1)).count, 0)
        XCTAssertNil(machine.innerSubscribed(2, LoggingSubscription()), "a late subscription is cancelled")
    }

    func testALateUpstreamIsAskedForTheTotalSoFarAndTheCancelEndsEverything() {
        var machine = MergeStateMachine(upstreamCount: 2)
        let a = LoggingSubscription()
        _ = machine.innerSubscribed(0, a)
        _ = machine.request(.max(3))
        let b = LoggingSubscription()
        XCTAssertEqual(machine.innerSubscribed(1, b), .max(3))
        XCTAssertNil(machine.innerSubscribed(1, LoggingSubscription()), "a second subscription")
        XCTAssertEqual(identities(machine.cancelled()?.cancel ?? []), identities(a, b))
        XCTAssertNil(machine.cancelled())
    }
}

/// The event merge's subscription can never send, trapped with its message (in a child process).
@Suite struct MergeStateMachineTrapTests {
    @Test func aCompletionFromAnUpstreamTheMergeNeverHadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = MergeStateMachine(upstreamCount: 2)
            _ = machine.innerCompleted(5, Subscribers.Completion<TestError>.finished)
        }
        #expect(result?.standardErrorText.contains("FanInUpstreams: isEnded(at: 5) with 2 upstreams") == true)
    }
}
