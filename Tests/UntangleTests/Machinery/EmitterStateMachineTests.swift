import Foundation
import Testing
import UntangleSync
import XCTest

@testable import Untangle

/// The emitter's decisions, tested as a pure state machine (no threads, no callouts).
final class EmitterStateMachineTests: XCTestCase {
    typealias Machine = EmitterStateMachine<Recorder<Int, Never>>
    let me = ThreadID.current
    // A thread identity that is not the current thread's: the main thread when tests run elsewhere, or a
    // finished helper thread's id (only compared, never used).
    lazy var other: ThreadID = {
        let id = LockedBox<ThreadID?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            id.withLock { $0 = ThreadID.current }
            done.signal()
        }.start()
        done.wait()
        return id.withLock { $0! }
    }()

    func started(_ policy: EmitterBufferPolicy) -> Machine {
        var machine = Machine(downstream: Recorder(), policy: policy)
        XCTAssertNotNil(machine.startSubscription(on: me))
        machine.subscriptionCalloutReturned()
        XCTAssertIsIdle(machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false))
        return machine
    }

    func XCTAssertIsIdle(_ next: Machine.Next, file: StaticString = #filePath, line: UInt = #line) {
        if case .idle = next { return }
        XCTFail("expected idle, got \(next)", file: file, line: line)
    }

    func testValueWithoutDemandIsDroppedUnderDropPolicy() {
        var machine = started(.dropWithoutDemand)
        guard case .dropped = machine.offer(1, on: me) else { return XCTFail() }
    }

    func testValueWithDemandMakesTheCallerTheOwner() {
        var machine = started(.dropWithoutDemand)
        guard case .none = machine.request(.max(1), on: me) else { return XCTFail("nothing to drain yet") }
        guard case .deliverAsOwner = machine.offer(1, on: me) else { return XCTFail() }
        XCTAssertEqual(machine.owner, me)
        XCTAssertEqual(machine.demand, .none)
    }

    func testValueFromAnotherThreadWhileOwnedIsQueuedAndReservesDemand() {
        var machine = started(.dropWithoutDemand)
        _ = machine.request(.max(2), on: me)
        guard case .deliverAsOwner = machine.offer(1, on: me) else { return XCTFail() }
        guard case .queued = machine.offer(2, on: other) else { return XCTFail() }
        guard case .dropped = machine.offer(3, on: other) else { return XCTFail("demand 2 was used up by 1 and 2") }
        guard case .value(_, 2) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
        XCTAssertIsIdle(machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false))
        XCTAssertNil(machine.owner)
    }

    func testSameThreadSendWhileOwningIsDeliveredNested() {
        var machine = started(.dropWithoutDemand)
        _ = machine.request(.max(2), on: me)
        guard case .deliverAsOwner = machine.offer(1, on: me) else { return XCTFail() }
        guard case .deliverNested = machine.offer(2, on: me) else { return XCTFail() }
    }

    func testSameThreadSendWithOthersQueuedAheadIsQueuedInOrder() {
        var machine = started(.unbounded)
        _ = machine.request(.max(5), on: me)
        guard case .deliverAsOwner = machine.offer(1, on: me) else { return XCTFail() }
        guard case .queued = machine.offer(2, on: other) else { return XCTFail() }
        guard case .queued = machine.offer(3, on: me) else { return XCTFail("2 was accepted first") }
    }

    func testRequestFromOwnerThreadOutsideSubscriptionCalloutDoesNotStartANestedDrain() {
        var machine = started(.unbounded)
        _ = machine.offer(1, on: other)  // queued: no demand
        _ = machine.request(.max(1), on: me)  // me becomes owner and must drain
        guard case .value(_, 1) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
        _ = machine.offer(2, on: other)
        // Reentrant request from inside receive(1): only adds demand; the running loop delivers.
        guard case .none = machine.request(.max(1), on: me) else { return XCTFail() }
        guard case .value(_, 2) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
    }

    func testRequestInsideSubscriptionCalloutDrainsNested() {
        var machine = Machine(downstream: Recorder(), policy: .keepLatest)
        _ = machine.offer(7, on: me)
        XCTAssertNotNil(machine.startSubscription(on: me))
        guard case .drainNestedInSubscriptionCallout = machine.request(.max(1), on: me) else { return XCTFail() }
        guard case .value(_, 7) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: true) else {
            return XCTFail()
        }
        XCTAssertIsIdle(machine.next(returnedDemand: .none, nestedInSubscriptionCallout: true))
        XCTAssertEqual(machine.owner, me, "ownership goes back to the subscription callout")
        XCTAssertEqual(machine.subscriptionPhase, .inCallout)
    }

    func testKeepLatestReplacesTheWaitingValue() {
        var machine = started(.keepLatest)
        _ = machine.offer(1, on: me)
        // The replaced value comes back to be released after unlocking (its deinit may be user code).
        guard case .queuedReplacing(1) = machine.offer(2, on: me) else { return XCTFail("1 must be handed back") }
        guard case .queuedReplacing(2) = machine.offer(3, on: me) else { return XCTFail("2 must be handed back") }
        XCTAssertEqual(machine.queue.count, 1)
        _ = machine.request(.max(1), on: me)
        guard case .value(_, 3) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
    }

    func testCompletionAfterDemandedValuesDiscardsTheRest() {
        var machine = started(.unbounded)
        _ = machine.offer(1, on: other)
        _ = machine.offer(2, on: other)
        _ = machine.offer(3, on: other)
        var demandOne = machine
        let (_, discarded) = demandOne.complete(.finished, order: .afterDemandedValues, on: me)
        XCTAssertEqual(discarded, [1, 2, 3], "no demand: every queued value is discarded")
        let (_, kept) = machine.complete(.finished, order: .afterQueuedValues, on: me)
        XCTAssertEqual(kept, [])
        XCTAssertEqual(machine.queue.count, 3)
    }

    func testCompletionNeedsNoDemandAndReleasesTheDownstream() {
        var machine = started(.dropWithoutDemand)
        guard case (.drain, _) = machine.complete(.finished, order: .afterDemandedValues, on: me) else {
            return XCTFail()
        }
        guard case .completion = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
        XCTAssertTrue(machine.isReleased)
        guard case .dropped = machine.offer(1, on: me) else { return XCTFail() }
    }

    func testCancelReleasesEverythingOnceAndClosesTheEmitter() {
        var machine = started(.unbounded)
        _ = machine.offer(1, on: other)
        let first = machine.cancel()
        XCTAssertTrue(first.cancelled)
        XCTAssertNotNil(first.released)
        var firstQueue = first.queue
        XCTAssertEqual(firstQueue.popFirst(), 1)
        XCTAssertFalse(machine.cancel().cancelled, "cancel is idempotent")
        XCTAssertTrue(machine.isReleased)
        guard case .dropped = machine.offer(2, on: me) else { return XCTFail() }
        guard case .none = machine.request(.max(1), on: me) else { return XCTFail() }
    }

    func testCancelWhileOwnedLeavesTheDownstreamToTheOwner() {
        var machine = started(.unbounded)
        _ = machine.request(.unlimited, on: me)
        guard case .deliverAsOwner = machine.offer(1, on: other) else { return XCTFail() }
        _ = machine.offer(2, on: me)
        let result = machine.cancel()
        XCTAssertTrue(result.cancelled)
        XCTAssertNil(result.released, "the owner may be delivering to the downstream in place")
        var dropped = result.queue
        XCTAssertEqual(dropped.popFirst(), 2, "queued values are dropped at once")
        XCTAssertFalse(machine.isReleased)
        XCTAssertFalse(machine.cancel().cancelled, "cancel is idempotent while the release is pending")
        guard case .dropped = machine.offer(3, on: me) else { return XCTFail() }
        guard case .none = machine.request(.max(1), on: me) else { return XCTFail() }
        guard case .cancelled = machine.next(returnedDemand: .max(1), nestedInSubscriptionCallout: false) else {
            return XCTFail("the owner releases the downstream when it next takes the lock")
        }
        XCTAssertTrue(machine.isReleased)
        XCTAssertNil(machine.owner)
        XCTAssertFalse(machine.isFastEligible)
    }

    func testFastPathNeedsUnlimitedDemandAnEmptyQueueAndTheSubscriptionCalloutOver() {
        var machine = Machine(downstream: Recorder(), policy: .dropWithoutDemand)
        XCTAssertFalse(machine.isFastEligible, "not started")
        XCTAssertNotNil(machine.startSubscription(on: me))
        _ = machine.request(.unlimited, on: me)
        XCTAssertFalse(machine.isFastEligible, "inside receive(subscription:)")
        machine.subscriptionCalloutReturned()
        XCTAssertIsIdle(machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false))
        XCTAssertTrue(machine.isFastEligible)

        var bounded = started(.unbounded)
        _ = bounded.request(.max(5), on: me)
        XCTAssertFalse(bounded.isFastEligible, "bounded demand must be counted under the lock")

        var queued = started(.unbounded)
        _ = queued.request(.unlimited, on: me)
        guard case .deliverAsOwner = queued.offer(1, on: other) else { return XCTFail() }
        _ = queued.offer(2, on: me)
        XCTAssertFalse(queued.isFastEligible, "a queued value must go first")

        var completing = started(.unbounded)
        _ = completing.request(.unlimited, on: me)
        _ = completing.complete(.finished, order: .afterQueuedValues, on: other)
        XCTAssertFalse(completing.isFastEligible, "no value after a completion")
    }

    /// The machine a subject builds for a `Sink` (`SubjectCore.subscribeSink`): no subscription callout, unlimited
    /// demand from the start, so any thread may deliver at once, and completion and cancel work as usual.
    func testAMachineStartedWithUnlimitedDemandDeliversAtOnceAndEndsAsUsual() {
        var machine = Machine(startedWithUnlimitedDemand: Recorder(), policy: .dropWithoutDemand)
        XCTAssertTrue(machine.isFastEligible)
        XCTAssertEqual(machine.demand, .unlimited)
        guard case .deliverAsOwner = machine.offer(1, on: other) else { return XCTFail() }
        XCTAssertEqual(machine.owner, other)
        XCTAssertIsIdle(machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false))
        XCTAssertTrue(machine.isFastEligible, "unlimited demand stays unlimited")
        guard case (.drain, _) = machine.complete(.finished, order: .afterDemandedValues, on: me) else {
            return XCTFail("the completion needs no demand")
        }
        guard case .completion = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
        XCTAssertTrue(machine.isReleased)

        var cancelled = Machine(startedWithUnlimitedDemand: Recorder(), policy: .dropWithoutDemand)
        XCTAssertTrue(cancelled.cancel().cancelled)
        guard case .dropped = cancelled.offer(2, on: me) else { return XCTFail("nothing after cancel") }
    }

    func testNothingIsDeliveredBeforeTheSubscriptionStarts() {
        var machine = Machine(downstream: Recorder(), policy: .unbounded)
        _ = machine.offer(1, on: other)
        guard case (.none, _) = machine.complete(.finished, order: .afterQueuedValues, on: other) else {
            return XCTFail()
        }
        XCTAssertNil(machine.owner)
    }

    // Batches (several threads queued values while one delivers).

    /// Takes the owner's next signal with batching on.
    func nextBatching(_ machine: inout Machine, returnedDemand: Subscribers.Demand = .none) -> Machine.Next {
        machine.next(returnedDemand: returnedDemand, nestedInSubscriptionCallout: false, batching: true)
    }

    func XCTAssertBatch(
        _ next: Machine.Next, _ expected: [Int], file: StaticString = #filePath, line: UInt = #line
    ) {
        guard case .values(_, var batch) = next else {
            return XCTFail("expected a batch of \(expected), got \(next)", file: file, line: line)
        }
        var values: [Int] = []
        while let value = batch.popFirst() { values.append(value) }
        XCTAssertEqual(values, expected, file: file, line: line)
    }

    func testOwnerTakesAllButTheLastQueuedValueInOneCriticalSection() {
        var machine = started(.unbounded)
        _ = machine.request(.unlimited, on: me)
        guard case .deliverAsOwner = machine.offer(1, on: other) else { return XCTFail() }
        for value in 2...5 {
            guard case .queued = machine.offer(value, on: me) else { return XCTFail("the other thread owns it") }
        }
        XCTAssertBatch(nextBatching(&machine), [2, 3, 4])
        XCTAssertEqual(machine.owner, other, "the batch bit is not part of the owner's identity")
        XCTAssertNotEqual(machine.ownerBits & Machine.batchBit, 0)
        XCTAssertEqual(machine.queue.count, 1, "the last value stays queued behind the batch")
        XCTAssertFalse(machine.isFastEligible)
        // The owner's own reentrant send during the batch goes behind it, not nested ahead of queued values.
        guard case .queued = machine.offer(6, on: other) else { return XCTFail("5 is queued ahead of it") }
        guard case .value(_, 5) = nextBatching(&machine) else { return XCTFail("fewer than three: one at a time") }
        XCTAssertEqual(machine.ownerBits & Machine.batchBit, 0, "the next critical section ends the batch")
        guard case .value(_, 6) = nextBatching(&machine) else { return XCTFail() }
        XCTAssertIsIdle(nextBatching(&machine))
        XCTAssertNil(machine.owner)
        XCTAssertTrue(machine.isFastEligible)
    }

    func testABatchTakesOnlyWhatDemandCoversAndConsumesItsDemand() {
        var machine = started(.unbounded)
        _ = machine.request(.max(4), on: me)
        guard case .deliverAsOwner = machine.offer(1, on: other) else { return XCTFail() }
        for value in 2...6 { _ = machine.offer(value, on: me) }
        XCTAssertBatch(nextBatching(&machine), [2, 3])
        XCTAssertEqual(machine.demand, .max(1), "the batch's demand is taken at once; 4 keeps the last one")
        guard case .value(_, 4) = nextBatching(&machine) else { return XCTFail() }
        XCTAssertIsIdle(nextBatching(&machine))
        XCTAssertEqual(machine.queue.count, 2, "5 and 6 wait for demand")
    }

    func testCancelDuringABatchClearsTheBatchBitAndTheOwnerReleasesTheDownstream() {
        var machine = started(.unbounded)
        _ = machine.request(.unlimited, on: me)
        guard case .deliverAsOwner = machine.offer(1, on: other) else { return XCTFail() }
        for value in 2...5 { _ = machine.offer(value, on: me) }
        XCTAssertBatch(nextBatching(&machine), [2, 3, 4])
        let result = machine.cancel()
        XCTAssertTrue(result.cancelled)
        XCTAssertNil(result.released, "the owner may be delivering a batch value in place")
        XCTAssertEqual(machine.ownerBits & Machine.batchBit, 0, "the owner stops before the batch's next value")
        XCTAssertEqual(machine.owner, other)
        guard case .cancelled = nextBatching(&machine) else { return XCTFail() }
        XCTAssertTrue(machine.isReleased)
    }

    func testAnImmediateCompletionDuringABatchCutsItShort() {
        var machine = started(.unbounded)
        _ = machine.request(.unlimited, on: me)
        guard case .deliverAsOwner = machine.offer(1, on: other) else { return XCTFail() }
        for value in 2...5 { _ = machine.offer(value, on: me) }
        XCTAssertBatch(nextBatching(&machine), [2, 3, 4])
        _ = machine.complete(.finished, order: .immediately, on: me)
        XCTAssertEqual(machine.ownerBits & Machine.batchBit, 0)
        guard case .completion = nextBatching(&machine) else { return XCTFail() }
    }

    func testWithoutBatchingTheOwnerTakesOneValueAtATime() {
        var machine = started(.unbounded)
        _ = machine.request(.unlimited, on: me)
        guard case .deliverAsOwner = machine.offer(1, on: other) else { return XCTFail() }
        for value in 2...5 { _ = machine.offer(value, on: me) }
        guard case .value(_, 2) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail("the lock-only build never batches")
        }
    }
}

/// The events the emitter can never send its state machine, each trapped with its message (in a child process).
@Suite struct EmitterStateMachineTrapTests {
    @Test func aSecondSubscriptionCalloutTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = EmitterStateMachine(downstream: Recorder<Int, Never>(), policy: .unbounded)
            _ = machine.startSubscription(on: ThreadID.current)
            machine.subscriptionCalloutReturned()
            _ = machine.startSubscription(on: ThreadID.current)
        }
        #expect(result?.standardErrorText.contains("EmitterStateMachine: startSubscription twice") == true)
    }

    @Test func aCalloutReturningOutsideTheCalloutTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = EmitterStateMachine(downstream: Recorder<Int, Never>(), policy: .unbounded)
            machine.subscriptionCalloutReturned()
        }
        #expect(
            result?.standardErrorText.contains("EmitterStateMachine: subscriptionCalloutReturned outside the callout")
                == true)
    }

    @Test func aNextSignalTakenByAThreadThatDoesNotOwnTheEmitterTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = EmitterStateMachine(downstream: Recorder<Int, Never>(), policy: .unbounded)
            _ = machine.startSubscription(on: ThreadID.current)
            machine.subscriptionCalloutReturned()
            _ = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false)
            _ = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false)
        }
        #expect(
            result?.standardErrorText.contains("EmitterStateMachine: next by a thread that does not own the emitter")
                == true)
    }

    @Test func aClaimBeforePublishingOfAMachineNotStartedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var machine = EmitterStateMachine(downstream: Recorder<Int, Never>(), policy: .keepLatest)
            machine.claimBeforePublishing(on: ThreadID.current)
        }
        #expect(
            result?.standardErrorText.contains("EmitterStateMachine: claimed before publishing only when fresh") == true
        )
    }

    @Test func aSelfHeldDownstreamAdoptedByAMachineWithADownstreamTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let downstream = Recorder<Int, Never>()
            var machine = EmitterStateMachine(downstream: downstream, policy: .unbounded)
            machine.adoptSelfHeldDownstream(downstream)
        }
        #expect(
            result?.standardErrorText.contains("EmitterStateMachine: a self-held downstream is adopted once") == true)
    }
}
