import Testing
import UntangleSync
import XCTest

@testable import Untangle

/// flatMap's machine (running, cancelling after the upstream's failure, ended; the buffer drained by one thread at a
/// time), decision by decision.
final class FlatMapStateMachineTests: XCTestCase {
    private typealias Machine = FlatMapStateMachine<Int>

    /// A machine whose upstream is subscribed and whose inner 0 is subscribed too.
    private func withInner(maxPublishers: Subscribers.Demand = .unlimited) -> (
        Machine, LoggingSubscription, LoggingSubscription
    ) {
        var machine = Machine(maxPublishers: maxPublishers)
        let upstream = LoggingSubscription()
        XCTAssertEqual(machine.upstreamSubscribed(upstream), maxPublishers)
        XCTAssertNil(machine.upstreamSubscribed(LoggingSubscription()), "a second upstream subscription")
        XCTAssertEqual(machine.innerCreated(), 0)
        let inner = LoggingSubscription()
        XCTAssertEqual(machine.innerSubscribed(0, inner), .max(1), "one value at a time while demand is bounded")
        XCTAssertNil(machine.innerSubscribed(0, LoggingSubscription()), "a second inner subscription")
        return (machine, upstream, inner)
    }

    func testAValueWithoutDemandWaitsAndTheRequestThatMeetsItDrainsItAskingItsInnerForMore() {
        var (machine, _, inner) = withInner()
        guard case .buffered = machine.innerValue(0, 7) else { return XCTFail("no demand yet") }
        let request = machine.downstreamAsked(.max(2))
        XCTAssertTrue(request.drain, "this thread drains")
        XCTAssertFalse(machine.downstreamAsked(.max(1)).drain, "one drainer at a time")
        guard case .deliver(7, let replenish) = machine.nextBuffered() else { return XCTFail("the buffered value") }
        XCTAssertTrue(isSame(replenish, inner))
        guard case .stop = machine.nextBuffered() else { return XCTFail("empty: stop draining") }
        guard case .deliverReplenishing = machine.innerValue(0, 8) else { return XCTFail("demand left: at once") }
    }

    func testUnlimitedDemandUnleashesTheInnersAndTheirValuesGoStraightThrough() {
        var (machine, _, inner) = withInner()
        XCTAssertEqual(identities(machine.downstreamAsked(.unlimited).unleash), identities(inner))
        guard case .deliverUnlimited(steady: true) = machine.innerValue(0, 1) else { return XCTFail("steady") }
        XCTAssertEqual(machine.innerCreated(), 1)
        XCTAssertEqual(machine.innerSubscribed(1, LoggingSubscription()), .unlimited)
    }

    func testTheFlatMapFinishesWhenTheUpstreamAndEveryInnerHaveFinishedAndNothingWaits() {
        var (machine, upstream, inner) = withInner(maxPublishers: .max(1))
        let (finish, released) = machine.upstreamFinished(on: .current)
        XCTAssertFalse(finish, "inner 0 is live")
        XCTAssertTrue(isSame(released, upstream))
        let (action, innerReleased) = machine.innerFinished(0)
        guard case .finish = action else { return XCTFail("all done") }
        XCTAssertTrue(isSame(innerReleased, inner))
        XCTAssertFalse(machine.isRunning)
        XCTAssertNil(machine.innerCreated(), "nothing is created after the end")
    }

    func testAnInnerFinishingUnderABoundedMaxPublishersAsksTheUpstreamForOneMore() {
        var (machine, upstream, _) = withInner(maxPublishers: .max(1))
        guard case .requestOneMore(let subscription) = machine.innerFinished(0).0 else { return XCTFail("one more") }
        XCTAssertTrue(isSame(subscription, upstream))
    }

    func testAnInnerFailureCancelsTheOthersAndTheUpstreamAndReleasesTheBuffer() {
        var (machine, upstream, _) = withInner()
        _ = machine.innerValue(0, 1)
        XCTAssertEqual(machine.innerCreated(), 1)
        let other = LoggingSubscription()
        _ = machine.innerSubscribed(1, other)
        guard let ending = machine.innerFailed(0) else { return XCTFail("ends") }
        XCTAssertEqual(identities(ending.cancel), identities(other, upstream), "the inners first, then the upstream")
        XCTAssertEqual((ending.released as? RingBuffer<Machine.Buffered>)?.count, 1)
        XCTAssertNil(machine.innerFailed(1))
        XCTAssertNil(machine.cancelled())
    }

    func testAnUpstreamFailureCancelsTheInnersThenEnds() {
        var (machine, _, inner) = withInner()
        guard let ending = machine.upstreamFailed(on: .current) else { return XCTFail("ends") }
        XCTAssertEqual(identities(ending.cancel), identities(inner))
        guard case .cancellingAfterUpstreamFailure = machine.phase else { return XCTFail("cancelling") }
        machine.upstreamFailureCancellationsDone()
        guard case .ended = machine.phase else { return XCTFail("ended") }
    }
}

/// The events flatMap's subscription can never send, each trapped with its message (in a child process).
@Suite struct FlatMapStateMachineTrapTests {
    @Test func drainingWithoutHavingClaimedTheDrainTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = FlatMapStateMachine<Int>(maxPublishers: .unlimited)
            _ = machine.nextBuffered()
        }
        #expect(
            result?.standardErrorText.contains(
                "FlatMapStateMachine: nextBuffered() while no thread drains the buffer") == true)
    }

    @Test func endingTheUpstreamFailureThatDidNotHappenTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = FlatMapStateMachine<Int>(maxPublishers: .unlimited)
            machine.upstreamFailureCancellationsDone()
        }
        #expect(
            result?.standardErrorText.contains(
                "FlatMapStateMachine: upstreamFailureCancellationsDone() in running, not after a failure") == true)
    }

    @Test func completingAgainDuringTheFailureTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = FlatMapStateMachine<Int>(maxPublishers: .unlimited)
            _ = machine.upstreamFailed(on: .current)
            _ = machine.upstreamFinished(on: .current)
        }
        #expect(result?.standardErrorText.contains("FlatMapStateMachine: the upstream completed again") == true)
    }

    @Test func aSignalOfAnInnerNeverCreatedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = FlatMapStateMachine<Int>(maxPublishers: .unlimited)
            _ = machine.innerValue(3, 1)
        }
        #expect(
            result?.standardErrorText.contains(
                "FlatMapStateMachine<Int>: innerValue(3) for an inner it never handed out") == true)
    }

    // flatMap counts the downstream's demand itself and keeps no numbered upstreams: the fan-in's default request
    // (forwarding to `upstreams`) is never its to answer.
    @Test func aForwardedRequestTrapsForAMachineWithoutNumberedUpstreams() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = FlatMapStateMachine<Int>(maxPublishers: .unlimited)
            _ = machine.request(.max(1))
        }
        #expect(
            result?.standardErrorText.contains("FlatMapStateMachine<Int>: upstreams: this machine keeps none") == true)
    }
}
