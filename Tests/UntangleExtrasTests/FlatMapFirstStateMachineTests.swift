import Testing
import Untangle
import XCTest

@testable import UntangleExtras

/// flatMapFirst's phases (idle, inner `id` active, ended), decision by decision.
final class FlatMapFirstStateMachineTests: XCTestCase {
    private typealias Completion = Subscribers.Completion<TestError>

    /// Upstream subscribed, inner 1 active and subscribed, `demand` asked.
    private func active(demand: Subscribers.Demand = .max(2)) -> (
        FlatMapFirstStateMachine, LoggingSubscription, LoggingSubscription
    ) {
        var machine = FlatMapFirstStateMachine()
        let upstream = LoggingSubscription()
        XCTAssertTrue(machine.upstreamSubscribed(upstream))
        XCTAssertFalse(machine.upstreamSubscribed(LoggingSubscription()), "a second upstream subscription")
        XCTAssertEqual(machine.request(demand).count, 0, "no inner yet")
        XCTAssertEqual(machine.upstreamSent(), 1)
        let inner = LoggingSubscription()
        XCTAssertEqual(machine.innerSubscribed(1, inner), demand, "the demand carries over")
        return (machine, upstream, inner)
    }

    func testUpstreamValuesAreIgnoredWhileAnInnerIsActiveAndStartTheNextOneAfterIt() {
        var (machine, _, inner) = active()
        XCTAssertNil(machine.upstreamSent(), "ignored: an inner is active")
        XCTAssertTrue(machine.innerValue(1).delivers)
        XCTAssertEqual(identities(machine.request(.max(1))), identities(inner))
        let finished = machine.innerCompleted(1, Completion.finished)
        XCTAssertNil(finished.completion)
        XCTAssertTrue(isSame(finished.released, inner))
        guard case .idle = machine.phase else { return XCTFail("idle") }
        XCTAssertFalse(machine.innerValue(1).delivers, "a finished inner's late value")
        XCTAssertEqual(machine.upstreamSent(), 2)
        XCTAssertEqual(machine.innerSubscribed(2, LoggingSubscription()), .max(2), "2 asked, 1 delivered, 1 more")
        XCTAssertNil(machine.innerSubscribed(1, LoggingSubscription()), "a stale inner")
    }

    func testTheUpstreamFinishingWhileAnInnerIsActiveFinishesAfterIt() {
        var (machine, upstream, _) = active()
        let upstreamFinished = machine.upstreamCompleted(Completion.finished)
        XCTAssertNil(upstreamFinished.completion)
        XCTAssertTrue(isSame(upstreamFinished.released, upstream))
        XCTAssertEqual(machine.innerCompleted(1, Completion.finished).completion, .finished)
        XCTAssertTrue(machine.isEnded)
    }

    func testFailuresEndEverythingCancellingOnlyWhatDidNotFail() {
        var (machine, upstream, inner) = active()
        let innerFailed = machine.innerCompleted(1, Completion.failure(TestError(1)))
        XCTAssertEqual(identities(innerFailed.cancel), identities(upstream))
        XCTAssertEqual(innerFailed.completion, .failure(TestError(1)))
        XCTAssertNil(machine.upstreamCompleted(Completion.failure(TestError(2))).completion, "the first one wins")
        var (other, _, otherInner) = active()
        let upstreamFailed = other.upstreamCompleted(Completion.failure(TestError(3)))
        XCTAssertEqual(identities(upstreamFailed.cancel), identities(otherInner))
        XCTAssertNil(other.cancelled())
        withExtendedLifetime(inner) {}
    }

    func testTheCancelCancelsTheInnerThenTheUpstream() {
        var (machine, upstream, inner) = active()
        XCTAssertEqual(identities(machine.cancelled()?.cancel ?? []), identities(inner, upstream))
        XCTAssertNil(machine.cancelled())
        XCTAssertEqual(machine.request(.max(1)).count, 0)
        XCTAssertNil(machine.upstreamSent())
    }
}

/// The event flatMapFirst's subscription can never send, trapped with its message (in a child process).
@Suite struct FlatMapFirstStateMachineTrapTests {
    @Test func aSignalOfAnInnerNeverStartedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // Upstream subscribed, inner 1 active and subscribed, 2 asked; then a value of inner 2.
            var machine = FlatMapFirstStateMachine()
            _ = machine.upstreamSubscribed(LoggingSubscription())
            _ = machine.request(.max(2))
            _ = machine.upstreamSent()
            _ = machine.innerSubscribed(1, LoggingSubscription())
            _ = machine.innerValue(2)
        }
        #expect(
            result?.standardErrorText.contains(
                "FlatMapFirstStateMachine: innerValue(2) for an inner it never handed out") == true)
    }
}
