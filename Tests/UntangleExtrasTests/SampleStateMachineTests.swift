import Untangle
import XCTest

@testable import UntangleExtras

/// The sample's phases, tested as a pure state machine: running (the upstream awaited, subscribed or finished, the
/// sampler's subscription) or terminated.
final class SampleStateMachineTests: XCTestCase {
    typealias Machine = SampleStateMachine<Int, Void, TestError>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private func replaced(_ decision: TriggerValueDecision<Int, Int>) -> Int? {
        if case .keep(let replaced) = decision { return replaced }
        XCTFail("a sample keeps every upstream value")
        return nil
    }

    private var isTerminated: (Machine) -> Bool = {
        if case .terminated = $0.phase { return true }
        return false
    }

    func testATickTakesTheLatestValueAndKeepsRunning() {
        var machine = Machine()
        XCTAssertEqual(machine.upstreamSubscribed(Token()).demand, .unlimited)
        XCTAssertEqual(machine.triggerSubscribed(Token()).demand, .unlimited)
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted, "a second sampler is refused")
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted, "a second upstream is refused")
        XCTAssertNil(machine.requested(.max(1)), "requests only count in the skeleton")
        XCTAssertNil(replaced(machine.upstreamSent(1)))
        XCTAssertEqual(replaced(machine.upstreamSent(2)), 1, "the replaced value is handed back")
        let tick = machine.triggerSent(())
        XCTAssertEqual(tick.value, 2)
        XCTAssertNil(tick.completion)
        XCTAssertNil(machine.triggerSent(()).value, "taken once")
        XCTAssertFalse(isTerminated(machine))
    }

    func testTheUpstreamFinishingLetsTheNextTickDeliverThenEndAndCancelTheSampler() {
        var machine = Machine()
        let upstream = Token()
        let sampler = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.triggerSubscribed(sampler)
        _ = machine.upstreamSent(7)
        let finished = machine.upstreamCompleted(.finished)
        XCTAssertTrue((finished.released as? Token) === upstream)
        XCTAssertNil(finished.completion, "the finish waits for the next tick")
        XCTAssertFalse(isTerminated(machine))
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted, "the finished upstream's slot stays closed")
        let tick = machine.triggerSent(())
        XCTAssertEqual(tick.value, 7)
        XCTAssertEqual(tick.completion, .finished)
        XCTAssertEqual(tick.order, .afterWaitingValues, "the value goes first, when demand allows")
        XCTAssertTrue(tick.endsDownstream)
        XCTAssertTrue((tick.cancelTrigger as? Token) === sampler)
        XCTAssertTrue(isTerminated(machine))
    }

    func testTheSamplerFinishingIsALastTickThatCancelsTheUpstreamButNotTheSampler() {
        var machine = Machine()
        let upstream = Token()
        let sampler = Token()
        _ = machine.upstreamSubscribed(upstream)
        _ = machine.triggerSubscribed(sampler)
        _ = machine.upstreamSent(4)
        let tick = machine.triggerCompleted(.finished)
        XCTAssertEqual(tick.value, 4)
        XCTAssertEqual(tick.completion, .finished)
        XCTAssertTrue((tick.cancelUpstream as? Token) === upstream)
        XCTAssertNil(tick.cancelTrigger)
        XCTAssertTrue((tick.released as? Token) === sampler)
    }

    func testAFailureOfEitherEndsAtOnceDroppingWhatWaitsAndCancelsTheOther() {
        var upstreamFails = Machine()
        let sampler = Token()
        _ = upstreamFails.upstreamSubscribed(Token())
        _ = upstreamFails.triggerSubscribed(sampler)
        _ = upstreamFails.upstreamSent(1)
        let failed = upstreamFails.upstreamCompleted(.failure(TestError(3)))
        XCTAssertEqual(failed.completion, .failure(TestError(3)))
        XCTAssertEqual(failed.order, .dropWaitingValues)
        XCTAssertTrue((failed.cancelTrigger as? Token) === sampler)
        XCTAssertEqual(failed.releasedValue, 1, "the latest value is released")

        var samplerFails = Machine()
        let upstream = Token()
        _ = samplerFails.upstreamSubscribed(upstream)
        let sampled = samplerFails.triggerCompleted(.failure(TestError(2)))
        XCTAssertEqual(sampled.completion, .failure(TestError(2)))
        XCTAssertTrue((sampled.cancelUpstream as? Token) === upstream)
        XCTAssertNil(sampled.cancelTrigger)
    }

    func testOnceTerminatedEverythingIsRefusedAndValuesAreHandedBack() {
        var machine = Machine()
        _ = machine.upstreamSent(1)
        let cancelled = machine.cancelled()
        XCTAssertNil(cancelled.cancelUpstream, "nothing subscribed yet")
        XCTAssertEqual(cancelled.releasedValue, 1)
        XCTAssertNil(machine.cancelled().releasedValue, "ended once")
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted)
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted)
        XCTAssertEqual(replaced(machine.upstreamSent(2)), 2)
        XCTAssertNil(machine.upstreamCompleted(.finished).released)
        let tick = machine.triggerSent(())
        XCTAssertNil(tick.value)
        XCTAssertNil(tick.completion)
    }
}
