import UntangleSync
import XCTest

@testable import Untangle

/// `EmitterStateMachine.enqueue(_:limit:)`: queueing without delivering, with a bound on the values that wait for
/// demand (what `Publishers.Create` and `ReplaySubject` in UntangleExtras build on).
final class EmitterWaitingLimitTests: XCTestCase {
    typealias Machine = EmitterStateMachine<Recorder<Int, Never>>
    let me = ThreadID.current

    func started() -> Machine {
        var machine = Machine(downstream: Recorder(), policy: .unbounded)
        XCTAssertNotNil(machine.startSubscription(on: me))
        machine.subscriptionCalloutReturned()
        guard case .idle = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            XCTFail("a fresh machine has nothing to deliver")
            return machine
        }
        return machine
    }

    /// The queue's values, front first (read from a copy).
    func queued(_ machine: Machine) -> [Int] {
        var copy = machine.queue.unsharedCopy()
        var values: [Int] = []
        while let value = copy.popFirst() { values.append(value) }
        return values
    }

    /// What `enqueue` answered, as a word: "queued", "replaced n" or "dropped".
    func enqueue(_ value: Int, _ limit: EmitterWaitingLimit, into machine: inout Machine) -> String {
        switch machine.enqueue(value, limit: limit) {
        case .queued: return "queued"
        case .queuedReplacing(let old): return "replaced \(old)"
        case .dropped: return "dropped"
        case .deliverAsOwner, .deliverNested, .replacingAsOwner: return "delivered"
        }
    }

    func testEnqueueNeverDeliversEvenWithDemandAndNobodyDelivering() {
        var machine = started()
        _ = machine.request(.max(2), on: me)
        XCTAssertEqual(enqueue(1, .unbounded, into: &machine), "queued")
        XCTAssertNil(machine.owner, "queueing claims nothing")
        guard case .drain = machine.claimOwnership(on: me) else { return XCTFail("the flush delivers it") }
        guard case .value(_, 1) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
    }

    func testEnqueueOnTheDeliveringThreadQueuesBehindTheRunningDelivery() {
        var machine = started()
        _ = machine.request(.max(2), on: me)
        guard case .deliverAsOwner = machine.offer(1, on: me) else { return XCTFail() }
        // Where `offer` would deliver nested (inside receive(1)), `enqueue` leaves the value to the owner's loop.
        XCTAssertEqual(enqueue(2, .unbounded, into: &machine), "queued")
        guard case .none = machine.claimOwnership(on: me) else { return XCTFail("the running loop delivers it") }
        guard case .value(_, 2) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
    }

    func testOfferUnderALimitDeliversAsOwnerButQueuesOnTheDeliveringThread() {
        var machine = started()
        _ = machine.request(.max(3), on: me)
        guard case .deliverAsOwner = machine.offer(1, on: me, limit: .oldest(0)) else { return XCTFail() }
        // Inside receive(1), on the owner's thread: queued for the owner's loop (a plain `offer` delivers nested).
        guard case .queued = machine.offer(2, on: me, limit: .oldest(0)) else { return XCTFail("no nesting") }
        guard case .value(_, 2) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
        guard case .idle = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
        guard case .deliverAsOwner = machine.offer(3, on: me, limit: .oldest(0)) else { return XCTFail() }
        XCTAssertEqual(machine.demand, .none)
        _ = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false)
        guard case .dropped = machine.offer(4, on: me, limit: .oldest(0)) else { return XCTFail("beyond demand") }
        guard case .queued = machine.offer(4, on: me, limit: .newest(1)) else { return XCTFail("one may wait") }
    }

    func testValuesThatDemandCoversAreNeverDroppedByTheLimit() {
        var machine = started()
        _ = machine.request(.max(2), on: me)
        XCTAssertEqual(enqueue(1, .oldest(0), into: &machine), "queued")
        XCTAssertEqual(enqueue(2, .newest(0), into: &machine), "queued")
        XCTAssertEqual(enqueue(3, .oldest(0), into: &machine), "dropped", "no room beyond the demand of 2")
        XCTAssertEqual(enqueue(3, .newest(0), into: &machine), "dropped", "a limit of 0 drops the new value")
        XCTAssertEqual(queued(machine), [1, 2])
    }

    func testNewestDropsTheOldestWaitingValueNotOneThatDemandCovers() {
        var machine = started()
        _ = machine.request(.max(1), on: me)
        XCTAssertEqual(enqueue(1, .newest(2), into: &machine), "queued")
        XCTAssertEqual(enqueue(2, .newest(2), into: &machine), "queued")
        XCTAssertEqual(enqueue(3, .newest(2), into: &machine), "queued")
        // 1 is covered by demand; 2 is the oldest waiting value, handed back to be released outside the lock.
        XCTAssertEqual(enqueue(4, .newest(2), into: &machine), "replaced 2")
        XCTAssertEqual(queued(machine), [1, 3, 4])
        XCTAssertEqual(enqueue(5, .newest(2), into: &machine), "replaced 3")
        XCTAssertEqual(queued(machine), [1, 4, 5])
    }

    /// With several values covered by demand (an owner is delivering them) and a long wait list behind them, each
    /// overflow drops exactly the first waiting value, in place: the covered values and the rest keep their order.
    func testNewestWithCoveredValuesDropsTheFirstWaitingOneAndKeepsTheOrder() {
        var machine = started()
        _ = machine.request(.max(3), on: me)
        for value in 1...8 {
            XCTAssertEqual(enqueue(value, .newest(5), into: &machine), "queued")
        }
        XCTAssertEqual(enqueue(9, .newest(5), into: &machine), "replaced 4")
        XCTAssertEqual(enqueue(10, .newest(5), into: &machine), "replaced 5")
        XCTAssertEqual(queued(machine), [1, 2, 3, 6, 7, 8, 9, 10])
        // The owner takes the first covered value; the two still covered stay in front of the waiting ones.
        guard case .drain = machine.claimOwnership(on: me) else { return XCTFail() }
        guard case .value(_, 1) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false) else {
            return XCTFail()
        }
        XCTAssertEqual(enqueue(11, .newest(5), into: &machine), "replaced 6")
        XCTAssertEqual(queued(machine), [2, 3, 7, 8, 9, 10, 11])
        guard case .value(_, 2) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false),
            case .value(_, 3) = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false),
            case .idle = machine.next(returnedDemand: .none, nestedInSubscriptionCallout: false)
        else { return XCTFail("the covered values, then nothing until more demand") }
        XCTAssertEqual(enqueue(12, .newest(5), into: &machine), "replaced 7")
        XCTAssertEqual(queued(machine), [8, 9, 10, 11, 12])
    }

    func testOldestKeepsTheWaitingValuesAndDropsTheNewOne() {
        var machine = started()
        XCTAssertEqual(enqueue(1, .oldest(2), into: &machine), "queued")
        XCTAssertEqual(enqueue(2, .oldest(2), into: &machine), "queued")
        XCTAssertEqual(enqueue(3, .oldest(2), into: &machine), "dropped")
        XCTAssertEqual(queued(machine), [1, 2])
    }

    /// `keepLatest` is `.newest(1)` and `dropWithoutDemand` is a limit of 0: the same values reach the queue.
    func testTheBoundedLimitSubsumesKeepLatestAndDropWithoutDemand() {
        for (policy, limit) in [
            (EmitterBufferPolicy.keepLatest, EmitterWaitingLimit.newest(1)),
            (.dropWithoutDemand, .oldest(0)), (.dropWithoutDemand, .newest(0)),
        ] {
            // Before the subscription starts nothing is delivered, so `offer` only applies its policy, as
            // `enqueue` applies its limit.
            var offered = Machine(downstream: Recorder(), policy: policy)
            var enqueued = Machine(downstream: Recorder(), policy: .unbounded)
            for value in 1...6 {
                if value == 4 {
                    _ = offered.request(.max(1), on: me)
                    _ = enqueued.request(.max(1), on: me)
                }
                _ = offered.offer(value, on: me)
                _ = enqueued.enqueue(value, limit: limit)
            }
            XCTAssertEqual(queued(offered), queued(enqueued), "\(policy) against \(limit)")
        }
    }

    func testNothingIsQueuedAfterTheCompletionOrACancel() {
        var completed = started()
        _ = completed.complete(.finished, order: .afterQueuedValues, on: me)
        XCTAssertEqual(enqueue(1, .unbounded, into: &completed), "dropped")
        var cancelled = started()
        _ = cancelled.cancel()
        XCTAssertEqual(enqueue(1, .unbounded, into: &cancelled), "dropped")
    }

    func testTheNamedLimitsSpellTheirCountAndOverflow() {
        XCTAssertEqual(EmitterWaitingLimit.newest(3), EmitterWaitingLimit(count: 3, overflow: .dropOldest))
        XCTAssertEqual(EmitterWaitingLimit.unbounded.count, Int.max)
    }

    /// `Emitter.accept` under a subject's lock makes the sender the owner; a cancel before the sender delivers
    /// (after that lock) must win: the value is dropped and the downstream released, nothing arrives after cancel.
    func testAnAcceptedValueIsNotDeliveredAfterACancelMadeBeforeItsDelivery() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        let emitter = Emitter(downstream: recorder, policy: .unbounded)
        emitter.start(subscription: Subscriptions.empty)
        emitter.request(.max(2))
        var dropped: Int?
        XCTAssertTrue(emitter.accept(1, limit: .unbounded, dropped: &dropped), "nobody delivers: the sender owns")
        emitter.deliverAccepted(1)
        XCTAssertTrue(emitter.accept(2, limit: .unbounded, dropped: &dropped))
        emitter.cancel()
        emitter.deliverAccepted(2)
        XCTAssertEqual(recorder.events.map(\.description), ["subscription(Empty)", "value(1)"])
        XCTAssertTrue(emitter.critical { $0.isReleased }, "the owner released the downstream")
        XCTAssertNil(dropped)
    }
}
