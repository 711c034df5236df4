import Testing
import XCTest

@testable import Untangle

/// combineLatest's bookkeeping (active with the upstreams missing a value and those not finished, finishing, ended),
/// decision by decision.
final class CombineLatestStateMachineTests: XCTestCase {
    private func subscribed(_ count: Int) -> (CombineLatestStateMachine, [LoggingSubscription]) {
        var machine = CombineLatestStateMachine(upstreamCount: count)
        let subscriptions = (0..<count).map { _ in LoggingSubscription() }
        for (index, subscription) in subscriptions.enumerated() {
            XCTAssertEqual(machine.subscribed(subscription, at: index), Subscribers.Demand.none)
        }
        return (machine, subscriptions)
    }

    func testATupleFormsOnceEveryUpstreamHasAValueThenOnEveryValue() {
        var (machine, _) = subscribed(2)
        XCTAssertTrue(machine.accepts(at: 0))
        XCTAssertEqual(machine.stored(isFirst: true), .kept)
        XCTAssertEqual(machine.stored(isFirst: false), .kept, "upstream 0 again: 1 still has none")
        XCTAssertEqual(machine.stored(isFirst: true), .formed)
        XCTAssertEqual(machine.stored(isFirst: false), .formed)
        XCTAssertEqual(machine.nextToForward(hasQueued: true), .value)
        XCTAssertEqual(machine.nextToForward(hasQueued: false), .idle)
    }

    func testEveryUpstreamFinishingFinishesAfterTheQueuedTuples() {
        var (machine, subscriptions) = subscribed(2)
        let first = machine.finished(at: 0)
        XCTAssertTrue(isSame(first.released, subscriptions[0]))
        XCTAssertFalse(first.needsForwarder)
        XCTAssertFalse(machine.accepts(at: 0), "a finished upstream's value is dropped")
        XCTAssertTrue(machine.accepts(at: 1))
        XCTAssertFalse(machine.finished(at: 0).needsForwarder, "twice")
        let last = machine.finished(at: 1)
        XCTAssertTrue(last.needsForwarder)
        XCTAssertTrue(last.releaseValues)
        XCTAssertFalse(machine.accepts(at: 1))
        XCTAssertEqual(machine.request(.max(1)).count, 0)
        XCTAssertEqual(machine.nextToForward(hasQueued: true), .value)
        XCTAssertEqual(machine.nextToForward(hasQueued: false), .finish)
        XCTAssertEqual(machine.nextToForward(hasQueued: false), .idle)
        XCTAssertNil(machine.cancelled(), "ended")
    }

    func testAFailureCancelsTheOthersAndReleasesTheFailedSubscription() {
        var (machine, subscriptions) = subscribed(3)
        guard let effects = machine.failed(at: 1) else { return XCTFail("ends") }
        XCTAssertEqual(identities(effects.cancel), identities(subscriptions[0], subscriptions[2]))
        XCTAssertTrue(isSame(effects.released, subscriptions[1]))
        XCTAssertTrue(effects.releaseValues)
        XCTAssertNil(machine.failed(at: 0), "the first completion wins")
        XCTAssertNil(machine.subscribed(LoggingSubscription(), at: 0))
    }

    func testACancelWhileFinishingStillEndsAndAskedDemandReachesLateUpstreams() {
        var machine = CombineLatestStateMachine(upstreamCount: 2)
        let a = LoggingSubscription()
        _ = machine.subscribed(a, at: 0)
        XCTAssertEqual(identities(machine.request(.max(2))), identities(a))
        XCTAssertEqual(machine.subscribed(LoggingSubscription(), at: 1), .max(2))
        _ = machine.finished(at: 0)
        _ = machine.finished(at: 1)
        XCTAssertNotNil(machine.cancelled(), "finishing: the cancel ends it")
        XCTAssertEqual(machine.nextToForward(hasQueued: true), .idle, "nothing is forwarded after the end")
    }
}

/// The event combineLatest's subscription can never send, trapped with its message (in a child process).
@Suite struct CombineLatestStateMachineTrapTests {
    @Test func storingAValueThatWasNotAcceptedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = CombineLatestStateMachine(upstreamCount: 1)
            _ = machine.cancelled()
            _ = machine.stored(isFirst: true)
        }
        #expect(result?.standardErrorText.contains("CombineLatestStateMachine: stored(isFirst: true) in ended") == true)
    }
}
