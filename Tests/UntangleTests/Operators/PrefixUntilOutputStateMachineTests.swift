import XCTest

@testable import Untangle

/// `prefix(untilOutputFrom:)`'s sources (each awaited, live or ended), tested as a pure state machine (no threads,
/// no callouts).
final class PrefixUntilOutputStateMachineTests: XCTestCase {
    typealias Machine = PrefixUntilOutputStateMachine<Int, Void, Never, TestError>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private func delivers(_ decision: TriggerValueDecision<Int, Never>) -> Bool {
        if case .deliver = decision { return true }
        return false
    }

    func testValuesPassOnceTheUpstreamSubscribedAndRequestsGoToIt() {
        var machine = Machine()
        XCTAssertNil(machine.requested(.max(1)), "a request before the upstream's subscription is ignored")
        XCTAssertFalse(delivers(machine.upstreamSent(1)), "a value before it is dropped")
        let upstream = Token()
        XCTAssertEqual(machine.upstreamSubscribed(upstream).demand, Subscribers.Demand.none)
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted, "a second one is refused")
        XCTAssertEqual(machine.triggerSubscribed(Token()).demand, .max(1))
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted)
        XCTAssertTrue((machine.requested(.max(2)) as? Token) === upstream)
        XCTAssertTrue(delivers(machine.upstreamSent(2)))
    }

    func testTheTriggersValueCancelsTheUpstreamReleasesTheTriggerAndFinishes() {
        var machine = Machine()
        let upstream = Token()
        let trigger = Token()
        _ = machine.triggerSubscribed(trigger)
        _ = machine.upstreamSubscribed(upstream)
        let fired = machine.triggerSent(())
        XCTAssertTrue((fired.cancelUpstream as? Token) === upstream)
        XCTAssertTrue((fired.released as? Token) === trigger, "released, not cancelled, as in Combine")
        XCTAssertNil(fired.cancelTrigger)
        XCTAssertEqual(fired.completion, .finished)
        XCTAssertTrue(fired.endsDownstream)
        XCTAssertNil(machine.triggerSent(()).completion, "once")
        XCTAssertFalse(delivers(machine.upstreamSent(3)))
        XCTAssertNil(machine.upstreamCompleted(.finished).completion)
    }

    func testTheTriggerFiringBeforeTheUpstreamSubscribedRefusesItOnArrival() {
        var machine = Machine()
        _ = machine.triggerSubscribed(Token())
        let fired = machine.triggerSent(())
        XCTAssertNil(fired.cancelUpstream)
        XCTAssertEqual(fired.completion, .finished)
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted, "cancelled on arrival")
    }

    func testATriggerValueBeforeItsSubscriptionIsIgnored() {
        var machine = Machine()
        XCTAssertNil(machine.triggerSent(()).completion)
    }

    func testTheUpstreamsCompletionCancelsTheTriggerAndGoesDownstreamOnlyIfItHadSubscribed() {
        var early = Machine()
        let trigger = Token()
        _ = early.triggerSubscribed(trigger)
        let before = early.upstreamCompleted(.finished)
        XCTAssertNil(before.completion, "a completion before the upstream's subscription is not passed on")
        XCTAssertTrue((before.cancelTrigger as? Token) === trigger)

        var machine = Machine()
        let upstream = Token()
        _ = machine.triggerSubscribed(trigger)
        _ = machine.upstreamSubscribed(upstream)
        let completed = machine.upstreamCompleted(.failure(TestError(3)))
        XCTAssertEqual(completed.completion, .failure(TestError(3)))
        XCTAssertTrue(completed.endsDownstream)
        XCTAssertTrue((completed.cancelTrigger as? Token) === trigger)
        XCTAssertTrue((completed.released as? Token) === upstream)
    }

    func testTheTriggersCompletionOnlyStopsListeningToIt() {
        var machine = Machine()
        let trigger = Token()
        _ = machine.triggerSubscribed(trigger)
        _ = machine.upstreamSubscribed(Token())
        let completed = machine.triggerCompleted(.finished)
        XCTAssertNil(completed.completion)
        XCTAssertTrue((completed.released as? Token) === trigger)
        XCTAssertNil(machine.triggerSent(()).completion, "no longer listened to")
        XCTAssertTrue(delivers(machine.upstreamSent(1)))
    }

    func testCancelCancelsBothAndRefusesLaterSubscriptions() {
        var machine = Machine()
        let upstream = Token()
        let trigger = Token()
        _ = machine.triggerSubscribed(trigger)
        _ = machine.upstreamSubscribed(upstream)
        let cancelled = machine.cancelled()
        XCTAssertTrue((cancelled.cancelUpstream as? Token) === upstream)
        XCTAssertTrue((cancelled.cancelTrigger as? Token) === trigger)
        XCTAssertFalse(machine.upstreamSubscribed(Token()).isAdmitted)
        XCTAssertFalse(machine.triggerSubscribed(Token()).isAdmitted)
    }
}
