import Testing
import XCTest

@testable import Untangle

/// buffer's phases, tested as a pure state machine: waiting for the upstream, running (the completion waiting behind
/// the queue), ended; and its mover: idle, moving, waiting for the overflow's error, also while the downstream is
/// inside its subscription callout (where only the callout's thread moves, nested).
final class BufferStateMachineTests: XCTestCase {
    typealias Machine = BufferStateMachine<Int, TestError, String>

    /// Two thread identities, compared and never dereferenced: the thread that makes the subscription callout, and
    /// another one.
    private let here = ThreadID(bits: 0x1000)!
    private let elsewhere = ThreadID(bits: 0x2000)!

    private func machine(
        size: Int = 2, prefetch: Publishers.PrefetchStrategy = .keepFull,
        whenFull: Publishers.BufferingStrategy<TestError> = .dropNewest
    ) -> Machine {
        Machine(downstream: "downstream", size: size, prefetch: prefetch, whenFull: whenFull)
    }

    /// Subscribed and handed over: the callout returned, and the mover took its first step and found nothing.
    private func running(
        size: Int = 2, prefetch: Publishers.PrefetchStrategy = .keepFull,
        whenFull: Publishers.BufferingStrategy<TestError> = .dropNewest, upstream: LoggingSubscription = .init()
    ) -> Machine {
        var machine = machine(size: size, prefetch: prefetch, whenFull: whenFull)
        _ = machine.subscribed(upstream)
        machine.startSubscriptionCallout(on: here)
        machine.subscriptionCalloutReturned()
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        return machine
    }

    /// Subscribed, with the downstream inside `receive(subscription:)` on `here`.
    private func inCallout(
        size: Int = 2, prefetch: Publishers.PrefetchStrategy = .keepFull,
        whenFull: Publishers.BufferingStrategy<TestError> = .dropNewest,
        beforeCallout: (inout Machine) -> Void = { _ in }
    ) -> Machine {
        var machine = machine(size: size, prefetch: prefetch, whenFull: whenFull)
        _ = machine.subscribed(LoggingSubscription())
        beforeCallout(&machine)
        machine.startSubscriptionCallout(on: here)
        return machine
    }

    /// The mover, and whose subscription callout runs: nobody's, `here`'s or another thread's.
    private func describeMover(_ machine: Machine) -> String {
        let mover: String
        switch machine.mover {
        case .idle: mover = "idle"
        case .moving: mover = "moving"
        case .awaitingError: mover = "awaitingError"
        }
        guard let callout = machine.calloutThread else { return mover }
        return mover + (callout == here ? " in the callout here" : " in another thread's callout")
    }

    private func describe(_ step: Machine.Step) -> String {
        switch step {
        case .value(let downstream, let value, let refill): return "\(downstream) <- \(value) refill \(refill)"
        case .complete(let downstream, let completion, let discarded):
            return "\(downstream) <- \(completion) discarding \(discarded.count)"
        case .stop: return "stop"
        }
    }

    private func describe(_ action: Machine.ValueAction) -> String {
        switch action {
        case .queued(let dropped, let move):
            return "queued dropping \(dropped.map(String.init) ?? "nothing") move \(move)"
        case .overflow: return "overflow"
        case .ignored: return "ignored"
        }
    }

    func testTheSubscriptionIsAdmittedWithThePrefetchAndTheCallerMovesUntilItHandedItOver() {
        var keepFull = machine(size: 3)
        let (admission, downstream) = keepFull.subscribed(LoggingSubscription())
        XCTAssertEqual(admission.demand, .max(3))
        XCTAssertEqual(downstream, "downstream")
        guard case .moving = keepFull.mover else { return XCTFail("the caller hands the subscription over") }
        XCTAssertEqual(
            describe(keepFull.receive(1, on: here)), "queued dropping nothing move false", "only queued meanwhile")
        XCTAssertEqual(keepFull.request(.max(1), on: here)?.move, false, "the caller still moves")
        XCTAssertEqual(describe(keepFull.nextStep(returned: .none)), "downstream <- 1 refill max(1)")
        XCTAssertEqual(describe(keepFull.nextStep(returned: .none)), "stop")
        guard case .idle = keepFull.mover else { return XCTFail("the mover stopped") }

        var byRequest = machine(prefetch: .byRequest)
        XCTAssertEqual(byRequest.subscribed(LoggingSubscription()).0.demand, .unlimited)
    }

    // Regression (the differential check's time mode: `buffer(1, keepFull)` over a `Record`, `buffer(1, byRequest)`
    // over a sequence, under a `throttle`): a request made inside `receive(subscription:)` got the queued value only
    // once the callout returned. The callout's own thread now moves nested, inside its request; another thread's
    // request only adds demand until the callout returns.
    func testARequestFromTheCalloutsThreadMovesNestedAndHandsTheMoverBackToTheCallout() {
        var machine = inCallout(size: 3) { machine in
            XCTAssertEqual(describe(machine.receive(1, on: here)), "queued dropping nothing move false")
            XCTAssertEqual(describe(machine.receive(2, on: here)), "queued dropping nothing move false")
        }
        XCTAssertEqual(describeMover(machine), "idle in the callout here")
        XCTAssertEqual(machine.request(.max(1), on: elsewhere)?.move, false, "another thread waits for the callout")
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, true, "the callout's thread moves nested")
        XCTAssertEqual(describeMover(machine), "moving in the callout here")
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, false, "a request from inside a nested delivery")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 1 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 2 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        XCTAssertEqual(describeMover(machine), "idle in the callout here")
        XCTAssertEqual(machine.demand, .max(1))
        XCTAssertEqual(describe(machine.receive(3, on: here)), "queued dropping nothing move true", "a nested send")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 3 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        XCTAssertEqual(describe(machine.receive(4, on: elsewhere)), "queued dropping nothing move false")
        machine.subscriptionCalloutReturned()
        XCTAssertEqual(describeMover(machine), "moving", "the callout's thread moves on what waited")
        XCTAssertEqual(describe(machine.nextStep(returned: .max(1))), "downstream <- 4 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        XCTAssertEqual(describeMover(machine), "idle")
    }

    func testACompletionDeliveredNestedInTheCalloutLeavesTheMoverToTheCallout() {
        var machine = inCallout(size: 3) { machine in
            _ = machine.receive(1, on: here)
            XCTAssertFalse(machine.receiveCompletion(.finished, on: here), "only recorded before the callout")
        }
        XCTAssertEqual(machine.request(.max(2), on: here)?.move, true)
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 1 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- finished discarding 0")
        XCTAssertEqual(describeMover(machine), "idle in the callout here")
        machine.subscriptionCalloutReturned()
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop", "the stream is over")
        XCTAssertEqual(describeMover(machine), "idle")
    }

    func testAnOverflowFoundByANestedMoveIsLeftToTheCalloutsReturn() {
        var machine = inCallout(size: 0, whenFull: .customError({ TestError(5) }))
        guard case .overflow(let makeError, _) = machine.receive(1, on: elsewhere) else {
            return XCTFail("a value overflows a buffer of size 0")
        }
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, true)
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop", "the error is not made yet")
        XCTAssertEqual(describeMover(machine), "idle in the callout here")
        XCTAssertFalse(machine.overflowed(with: makeError()), "nobody waits for it: the callout's return moves")
        machine.subscriptionCalloutReturned()
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- failure(TestError(5)) discarding 0")
    }

    func testACancelDuringTheCalloutStopsTheNestedMoveAndTheCalloutsReturn() {
        var machine = inCallout(size: 3) { machine in _ = machine.receive(1, on: here) }
        XCTAssertEqual(machine.request(.max(5), on: here)?.move, true)
        XCTAssertNotNil(machine.cancel())
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        XCTAssertEqual(describeMover(machine), "idle in the callout here")
        machine.subscriptionCalloutReturned()
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        XCTAssertEqual(describeMover(machine), "idle")
    }

    func testASecondSubscriptionIsRejected() {
        var machine = running()
        let (admission, downstream) = machine.subscribed(LoggingSubscription())
        XCTAssertFalse(admission.isAdmitted)
        XCTAssertNil(downstream)
    }

    func testARequestClaimsTheIdleMoverAndTheMoverDeliversWhileDemandLasts() {
        let upstream = LoggingSubscription()
        var machine = running(size: 4, upstream: upstream)
        XCTAssertEqual(describe(machine.receive(1, on: here)), "queued dropping nothing move true")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop", "no demand yet")
        XCTAssertEqual(describe(machine.receive(2, on: here)), "queued dropping nothing move true")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        let request = machine.request(.max(1), on: here)
        XCTAssertEqual(request?.0.combineIdentifier, upstream.combineIdentifier)
        XCTAssertEqual(request?.move, true)
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, false, "the mover is taken")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 1 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .max(1))), "downstream <- 2 refill max(1)")
        XCTAssertEqual(machine.demand, .max(1), "two requested, one returned, two delivered")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
    }

    func testAFullBufferDropsTheNewestOrTheOldestValue() {
        var newest = running(size: 1, whenFull: .dropNewest)
        _ = newest.receive(1, on: here)
        _ = newest.nextStep(returned: .none)
        XCTAssertEqual(describe(newest.receive(2, on: here)), "queued dropping 2 move true")
        _ = newest.nextStep(returned: .none)

        var oldest = running(size: 1, whenFull: .dropOldest)
        _ = oldest.receive(1, on: here)
        _ = oldest.nextStep(returned: .none)
        XCTAssertEqual(describe(oldest.receive(2, on: here)), "queued dropping 1 move true")
        _ = oldest.request(.max(1), on: here)
        XCTAssertEqual(describe(oldest.nextStep(returned: .none)), "downstream <- 2 refill max(1)")
    }

    func testAnOverflowWithACustomErrorParksTheMoverUntilTheErrorIsStored() {
        let upstream = LoggingSubscription()
        var machine = running(size: 1, whenFull: .customError({ TestError(7) }), upstream: upstream)
        _ = machine.receive(1, on: here)
        _ = machine.nextStep(returned: .none)
        guard case .overflow(let makeError, let subscription) = machine.receive(2, on: here) else {
            return XCTFail("the second value overflows")
        }
        XCTAssertEqual(subscription.combineIdentifier, upstream.combineIdentifier)
        XCTAssertEqual(describe(machine.receive(3, on: here)), "ignored", "no value is accepted once overflowing")
        // A request moves the queued value on, then finds the error missing and parks.
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, true)
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 1 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        guard case .awaitingError = machine.mover else { return XCTFail("the mover waits for the error") }
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, false, "nobody else moves meanwhile")
        XCTAssertTrue(machine.overflowed(with: makeError()), "storing the error resumes the mover")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- failure(TestError(7)) discarding 0")
        XCTAssertEqual(describe(machine.receive(4, on: here)), "ignored")
        XCTAssertNil(machine.request(.max(1), on: here))
    }

    func testAnErrorStoredBeforeAnyMoverParkedDoesNotMove() {
        var machine = running(size: 0, whenFull: .customError({ TestError(1) }))
        guard case .overflow(let makeError, _) = machine.receive(1, on: here) else { return XCTFail() }
        XCTAssertFalse(machine.overflowed(with: makeError()))
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, true)
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- failure(TestError(1)) discarding 0")
    }

    func testFinishedWaitsBehindTheQueueAndForDemandAndValuesMayStillJoinTheQueue() {
        var machine = running(size: 4)
        _ = machine.receive(1, on: here)
        _ = machine.nextStep(returned: .none)
        XCTAssertTrue(machine.receiveCompletion(.finished, on: here))
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop")
        XCTAssertFalse(machine.receiveCompletion(.failure(TestError()), on: here), "a second completion is ignored")
        XCTAssertEqual(
            describe(machine.receive(2, on: here)), "queued dropping nothing move true", "queued ahead of .finished")
        _ = machine.nextStep(returned: .none)
        _ = machine.request(.max(2), on: here)
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 1 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- 2 refill max(1)")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop", "the demand is used up")
        XCTAssertEqual(machine.request(.max(1), on: here)?.move, true)
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- finished discarding 0")
        guard case .ended = machine.phase, case .finished? = machine.terminal else {
            return XCTFail("ended, the mirror keeps .finished")
        }
        guard case .idle = machine.mover else { return XCTFail() }
    }

    func testAFailureGoesOnceTheDemandIsUsedUpDiscardingTheQueue() {
        var machine = running(size: 4, prefetch: .byRequest)
        _ = machine.receive(1, on: here)
        _ = machine.nextStep(returned: .none)
        _ = machine.receive(2, on: here)
        _ = machine.nextStep(returned: .none)
        XCTAssertTrue(machine.receiveCompletion(.failure(TestError(3)), on: here))
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "downstream <- failure(TestError(3)) discarding 2")
    }

    func testACancelEndsTheRunStopsTheMoverAtItsNextStepAndIsAnsweredOnce() {
        let upstream = LoggingSubscription()
        var machine = running(size: 4, upstream: upstream)
        _ = machine.receive(1, on: here)
        _ = machine.request(.max(5), on: here)
        guard let cancelled = machine.cancel() else { return XCTFail("a running buffer cancels its upstream") }
        XCTAssertEqual(cancelled.0.combineIdentifier, upstream.combineIdentifier)
        XCTAssertEqual(cancelled.discarded.count, 1)
        XCTAssertEqual(cancelled.downstream, "downstream")
        XCTAssertEqual(describe(machine.nextStep(returned: .none)), "stop", "the mover stops before the next value")
        XCTAssertNil(machine.cancel())
        XCTAssertEqual(describe(machine.receive(2, on: here)), "ignored")
        XCTAssertFalse(machine.receiveCompletion(.finished, on: here))
        XCTAssertFalse(machine.subscribed(LoggingSubscription()).0.isAdmitted)
    }

    func testACancelReleasesAMoverWaitingForTheOverflowError() {
        var machine = running(size: 0, whenFull: .customError({ TestError(1) }))
        guard case .overflow(let makeError, _) = machine.receive(1, on: here) else { return XCTFail() }
        _ = machine.request(.max(1), on: here)
        _ = machine.nextStep(returned: .none)
        guard case .awaitingError = machine.mover else { return XCTFail() }
        XCTAssertNotNil(machine.cancel())
        guard case .idle = machine.mover else { return XCTFail("nobody waits for the error any more") }
        XCTAssertFalse(machine.overflowed(with: makeError()), "the error of an ended buffer moves nothing")
    }

    func testACancelBeforeTheSubscriptionCancelsNothing() {
        var machine = machine()
        XCTAssertNil(machine.cancel())
        XCTAssertTrue(machine.subscribed(LoggingSubscription()).0.isAdmitted)
    }
}

/// The events buffer's driver can never send, each trapped with its message (in a child process).
@Suite struct BufferStateMachineTrapTests {
    @Test func aStepByAThreadThatIsNotTheMoverTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = BufferStateMachine<Int, TestError, String>(
                downstream: "downstream", size: 1, prefetch: .keepFull, whenFull: .dropNewest)
            _ = machine.nextStep(returned: .none)
        }
        #expect(
            result?.standardErrorText.contains("BufferStateMachine: nextStep by a thread that is not the mover") == true
        )
    }

    @Test func theCalloutReturningWithoutHavingStartedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = BufferStateMachine<Int, TestError, String>(
                downstream: "downstream", size: 1, prefetch: .keepFull, whenFull: .dropNewest)
            _ = machine.subscribed(LoggingSubscription())
            machine.subscriptionCalloutReturned()
        }
        #expect(
            result?.standardErrorText.contains(
                "BufferStateMachine: subscriptionCalloutReturned outside the subscription callout") == true)
    }

    @Test func anOverflowErrorWithNoOverflowTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = BufferStateMachine<Int, TestError, String>(
                downstream: "downstream", size: 1, prefetch: .keepFull, whenFull: .dropNewest)
            _ = machine.subscribed(LoggingSubscription())
            _ = machine.overflowed(with: TestError())
        }
        #expect(
            result?.standardErrorText.contains("BufferStateMachine: overflowed(with:) with no overflow pending") == true
        )
    }
}
