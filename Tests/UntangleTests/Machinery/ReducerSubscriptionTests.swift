import Foundation
import UntangleSync
import XCTest

@testable import Untangle

/// The pure state of the "single result at completion" subscription, decision by decision.
final class ReducerStateMachineTests: XCTestCase {
    private typealias State = ReducerStateMachine<String, Int>

    private func subscribed(_ policy: ReducerUpstreamDemand) -> State {
        var state = State(downstream: "down", policy: policy)
        XCTAssertEqual(state.receivedSubscription(Subscriptions.empty), "down")
        return state
    }

    func testASecondSubscriptionIsRefused() {
        var state = subscribed(.unlimitedAtSubscription)
        XCTAssertNil(state.receivedSubscription(Subscriptions.empty))
    }

    func testReducersAskForUnlimitedAtSubscriptionAndKeepRequestsToThemselves() {
        var state = subscribed(.unlimitedAtSubscription)
        XCTAssertNotNil(state.eagerRequest())
        guard case .none = state.request(.max(1)) else { return XCTFail("a reducer passed a request upstream") }
    }

    func testPassThroughForwardsEveryRequestAndAsksNothingItself() {
        for policy in [ReducerUpstreamDemand.passThrough, .passThroughTrappingUnrequested] {
            var state = subscribed(policy)
            XCTAssertNil(state.eagerRequest(), "replaceEmpty and replaceError keep demand exact")
            guard case .requestUpstream(_, .max(2)) = state.request(.max(2)) else { return XCTFail() }
        }
        var state = subscribed(.passThrough)
        guard case .requestUpstream(_, .max(2)) = state.request(.max(2)) else { return XCTFail() }
        guard case .requestUpstream(_, .max(3)) = state.request(.max(3)) else { return XCTFail() }
    }

    func testNoEagerRequestAfterTheDownstreamCancelledInReceiveSubscription() {
        var state = subscribed(.unlimitedAtSubscription)
        _ = state.cancel()
        XCTAssertNil(state.eagerRequest())
    }

    func testAResultWithoutDemandWaitsForTheFirstRequest() {
        var state = subscribed(.unlimitedAtSubscription)
        let finish = state.finish(7, needsDemand: true, hasValue: false)
        XCTAssertNotNil(finish.upstream, "the upstream subscription is handed out to be released")
        XCTAssertNil(finish.deliver)
        XCTAssertEqual(state.held, 7)
        guard case .deliver("down", 7) = state.request(.max(1)) else { return XCTFail() }
        guard case .none = state.request(.max(1)) else { return XCTFail("delivered twice") }
    }

    func testAResultWithDemandIsDeliveredAtOnce() {
        var state = subscribed(.unlimitedAtSubscription)
        _ = state.request(.max(1))
        let finish = state.finish(7, needsDemand: true, hasValue: false)
        XCTAssertEqual(finish.deliver?.0, "down")
        XCTAssertEqual(finish.deliver?.1, 7)
        XCTAssertNil(state.downstream, "the downstream is released with the delivery")
    }

    func testAFailureNeedsNoDemand() {
        var state = subscribed(.unlimitedAtSubscription)
        XCTAssertEqual(state.finish(0, needsDemand: false, hasValue: false).deliver?.1, 0)
    }

    func testARequestBeforeTheSubscriptionIsRemembered() {
        var state = State(downstream: "down", policy: .unlimitedAtSubscription)
        guard case .none = state.request(.max(1)) else { return XCTFail() }
        _ = state.receivedSubscription(Subscriptions.empty)
        XCTAssertEqual(state.finish(3, needsDemand: true, hasValue: false).deliver?.1, 3)
    }

    func testPassThroughEmissionsConsumeDemand() {
        var state = subscribed(.passThrough)
        _ = state.request(.max(1))
        guard case .deliver("down") = state.willEmit() else { return XCTFail() }
        XCTAssertNil(
            state.finish(9, needsDemand: true, hasValue: false).deliver, "the only demand was used by the emission")
        state.didEmit(returning: .none)
        guard case .deliver(_, 9) = state.request(.max(1)) else { return XCTFail() }
    }

    func testAnUnrequestedValueIsReportedOnlyByReplaceErrorsPolicy() {
        var strict = subscribed(.passThroughTrappingUnrequested)
        guard case .unrequested = strict.willEmit() else { return XCTFail("replaceError must trap") }
        var lenient = subscribed(.passThrough)
        guard case .deliver = lenient.willEmit() else {
            return XCTFail("replaceEmpty passes what the upstream sends, as map does")
        }
    }

    func testCancelBeforeTheSubscriptionDoesNothing() {
        var state = State(downstream: "down", policy: .unlimitedAtSubscription)
        let cancel = state.cancel()
        XCTAssertNil(cancel.upstream)
        XCTAssertNil(cancel.released.0)
        XCTAssertEqual(state.receivedSubscription(Subscriptions.empty), "down", "the subscription is still taken")
    }

    func testCancelDropsThePendingResultAndTheDownstream() {
        var state = subscribed(.unlimitedAtSubscription)
        _ = state.finish(7, needsDemand: true, hasValue: false)
        let cancel = state.cancel()
        XCTAssertEqual(cancel.released.0, "down")
        XCTAssertEqual(cancel.released.1, 7)
        XCTAssertNil(cancel.upstream, "already released by the finish")
        guard case .none = state.request(.max(1)) else { return XCTFail("delivered after cancel") }
    }

    func testUnlimitedOnFirstRequestAsksOnceAtTheFirstRequestAndNotAtSubscription() {
        var state = subscribed(.unlimitedOnFirstRequest)
        XCTAssertNil(state.eagerRequest(), "asSingle asks nothing before its subscriber does")
        guard case .requestUpstream(_, .unlimited) = state.request(.max(1)) else { return XCTFail() }
        guard case .none = state.request(.max(1)) else { return XCTFail("asked twice") }
    }

    func testTheCompletableAndFirstRequestPoliciesFinishWithoutDemand() {
        XCTAssertTrue(ReducerUpstreamDemand.unlimitedAtSubscription.bareFinishWaitsForDemand)
        for policy in [ReducerUpstreamDemand.unlimitedAtSubscriptionFinishingWithoutDemand, .unlimitedOnFirstRequest] {
            XCTAssertFalse(policy.bareFinishWaitsForDemand)
        }
        var state = subscribed(.unlimitedAtSubscriptionFinishingWithoutDemand)
        XCTAssertNotNil(state.eagerRequest(), "a completable asks for .unlimited at subscription")
        guard case .none = state.request(.max(1)) else { return XCTFail() }
    }

    func testTheFinalSignalCarriesWhetherItHasAValueThroughThePendingPhase() {
        var valued = subscribed(.passThrough)
        XCTAssertNil(valued.finish(5, needsDemand: true, hasValue: true).deliver)
        guard case .deliver("down", 5) = valued.request(.max(1)) else { return XCTFail() }
        XCTAssertEqual(valued.downstream, "down", "a final value keeps the downstream for the completion")
        XCTAssertEqual(valued.valueDelivered(), "down")
        XCTAssertNil(valued.downstream)

        var bare = subscribed(.unlimitedAtSubscription)
        _ = bare.finish(0, needsDemand: true, hasValue: false)
        guard case .deliver("down", 0) = bare.request(.max(1)) else { return XCTFail() }
        XCTAssertNil(bare.downstream, "a bare completion releases the downstream with the hand-over")
    }

    func testAValueAfterTheEndIsDroppedAndReturnedDemandIsIgnored() {
        var state = subscribed(.passThrough)
        _ = state.request(.max(1))
        _ = state.cancel()
        guard case .drop = state.willEmit() else { return XCTFail("emitted after cancel") }
        state.didEmit(returning: .max(3))
        XCTAssertEqual(state.demand, .max(1), "the demand is no longer counted")
    }

    func testAFinishAfterTheDownstreamCancelledHandsNothingOut() {
        var state = subscribed(.unlimitedAtSubscription)
        _ = state.cancel()
        let finish = state.finish(1, needsDemand: false, hasValue: true)
        XCTAssertNil(finish.upstream, "the cancel took it")
        XCTAssertNil(finish.deliver)
    }

    func testAFinalValueKeepsTheDownstreamUntilDeliveredSoACancelInsideItDropsTheCompletion() {
        var state = subscribed(.unlimitedAtSubscription)
        _ = state.request(.max(1))
        XCTAssertEqual(state.finish(7, needsDemand: true, hasValue: true).deliver?.0, "down")
        XCTAssertEqual(state.downstream, "down", "kept while the value goes downstream")
        guard case .none = state.request(.max(1)) else { return XCTFail("a request handed the result out twice") }
        XCTAssertEqual(state.cancel().released.0, "down", "a cancel inside receive(_:) takes the downstream")
        XCTAssertNil(state.valueDelivered(), "no completion after the cancel")

        var uncancelled = subscribed(.unlimitedAtSubscription)
        _ = uncancelled.finish(7, needsDemand: true, hasValue: true)
        guard case .deliver("down", 7) = uncancelled.request(.max(1)) else { return XCTFail() }
        XCTAssertEqual(uncancelled.valueDelivered(), "down", "the completion follows the value")
        XCTAssertNil(uncancelled.downstream)
        XCTAssertNil(uncancelled.valueDelivered(), "only once")
    }

    func testFinishAfterCancelDeliversNothing() {
        var state = subscribed(.unlimitedAtSubscription)
        _ = state.request(.max(1))
        XCTAssertNotNil(state.cancel().upstream)
        XCTAssertNil(state.finish(7, needsDemand: true, hasValue: false).deliver)
    }
}

/// What every reducer shares with Combine's: the order of the first signals, what is ignored, and how the
/// subscription describes itself.
final class ReducerSubscriptionBehaviourTests: XCTestCase {
    func testTheSubscriberGetsItsSubscriptionBeforeTheUpstreamIsAsked() {
        let upstream = ManualPublisher<Int, Never>()
        var historyAtSubscription: [ManualPublisher<Int, Never>.UpstreamEvent]?
        let recorder = Recorder<Int, Never>(
            initialDemand: nil, onSubscription: { _, _ in historyAtSubscription = upstream.history })
        upstream.count().subscribe(recorder)
        XCTAssertEqual(historyAtSubscription, [])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testSignalsBeforeTheUpstreamSubscriptionAreIgnored() throws {
        let capture = CapturingPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        var calls = 0
        capture.reduce(0) { total, _ in
            calls += 1
            return total
        }.subscribe(recorder)
        let subscriber = try XCTUnwrap(capture.erasedSubscriber)
        XCTAssertEqual(subscriber.receive(1), .none)
        subscriber.receive(completion: .finished)
        XCTAssertEqual(calls, 0, "the closure never ran")
        XCTAssertEqual(recorder.events, [])
    }

    func testARequestBeforeTheUpstreamSubscriptionDoesNotTrap() throws {
        let capture = CapturingPublisher<Int, Never>()
        capture.last().subscribe(Recorder<Int, Never>(initialDemand: nil))
        try XCTUnwrap(capture.subscriber as? Subscription).request(.max(1))
    }

    func testCancelBeforeTheUpstreamSubscriptionIsIgnoredAsInCombine() throws {
        let capture = CapturingPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        capture.count().subscribe(recorder)
        try XCTUnwrap(capture.subscriber as? Subscription).cancel()
        let upstream = RecordingSubscription()
        capture.erasedSubscriber?.receive(subscription: upstream)
        XCTAssertEqual(upstream.history, ["request(unlimited)"])
        XCTAssertEqual(recorder.events, [.subscription("Count")])
    }

    func testDescriptionsAndMirrorsAsCombinesSubscriptions() throws {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        let upstream = ManualPublisher<Int, Never>()
        upstream.reduce(5, +).subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual(String(describing: subscription), "Reduce")
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "Reduce")
        XCTAssertFalse(subscription is CustomDebugStringConvertible)
        let mirror = try XCTUnwrap((subscription as? CustomReflectable)?.customMirror)
        XCTAssertEqual(mirror.children.map(\.label), ["downstream", "result", "initial", "status"])
        upstream.send(1)
        upstream.send(completion: .finished)
        let held = try XCTUnwrap((subscription as? CustomReflectable)?.customMirror)
        XCTAssertEqual(
            Array(held.children.map { String(describing: $0.value) }.dropFirst()),
            ["Optional(6)", "Optional(5)", "holding the result until requested"])

        let collected = Recorder<[Int], Never>(initialDemand: nil)
        let elements = ManualPublisher<Int, Never>()
        elements.collect().subscribe(collected)
        for element in 1...3 { elements.send(element) }
        elements.send(completion: .finished)
        let collectMirror = try XCTUnwrap((try XCTUnwrap(collected.subscription) as? CustomReflectable)?.customMirror)
        XCTAssertEqual(collectMirror.children.map(\.label), ["count"])
        XCTAssertEqual(collectMirror.children.first.map { "\($0.value)" }, "3")

        let replacing = Recorder<Int, Never>(initialDemand: nil)
        ManualPublisher<Int, TestError>().replaceError(with: 1).subscribe(replacing)
        XCTAssertEqual(replacing.subscription.map(String.init(describing:)), "ReplaceError")
        let replaceMirror = try XCTUnwrap((try XCTUnwrap(replacing.subscription) as? CustomReflectable)?.customMirror)
        XCTAssertTrue(replaceMirror.children.isEmpty)
    }
}

/// A subscription that records what it is asked.
private final class RecordingSubscription: Subscription {
    var history: [String] = []
    func request(_ demand: Subscribers.Demand) { history.append("request(\(demand))") }
    func cancel() { history.append("cancel") }
}

/// The final value of a reducer is delivered exactly once when the downstream's request (or cancel) races the
/// upstream's completion from another thread.
final class ReducerConcurrencyTests: XCTestCase {
    func testResultDeliveredExactlyOnceWhenRequestRacesCompletion() {
        for round in 0..<1_000 {
            let upstream = ManualPublisher<Int, Never>()
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            upstream.count().subscribe(recorder)
            runConcurrently(threads: 2, timeout: 60) { thread in
                if thread == 0 {
                    recorder.request(.max(1))
                } else {
                    upstream.send(completion: .finished)
                }
            }
            XCTAssertEqual(
                recorder.events, [.subscription("Count"), .value(0), .completion(.finished)], "round \(round)")
            if recorder.events.count != 3 { return }
        }
    }

    func testResultDeliveredExactlyOnceWhenSeveralRequestsRaceCompletion() {
        for round in 0..<1_000 {
            let upstream = ManualPublisher<Int, TestError>()
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            upstream.replaceError(with: 42).subscribe(recorder)
            runConcurrently(threads: 3, timeout: 60) { thread in
                if thread == 2 {
                    upstream.send(completion: .failure(TestError()))
                } else {
                    recorder.request(.max(1))
                }
            }
            XCTAssertEqual(
                recorder.events, [.subscription("ReplaceError"), .value(42), .completion(.finished)],
                "round \(round)")
            if recorder.events.count != 3 { return }
        }
    }

    func testEarlyResultRacingTheFirstRequestIsDeliveredOnceAfterTheUpstreamIsCancelled() {
        for round in 0..<1_000 {
            let upstream = ManualPublisher<Int, Never>()
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            upstream.first { $0 > 1 }.subscribe(recorder)
            upstream.send(1)
            runConcurrently(threads: 2, timeout: 60) { thread in
                if thread == 0 {
                    recorder.request(.max(1))
                } else {
                    upstream.send(2)
                }
            }
            XCTAssertEqual(
                recorder.events, [.subscription("TryFirst"), .value(2), .completion(.finished)], "round \(round)")
            XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel], "round \(round)")
            if recorder.events.count != 3 { return }
        }
    }

    // A cancel landing between the value and the completion keeps the completion: nothing reaches a subscriber
    // after its own cancel, so the value alone is a third correct outcome.
    func testCancelRacingCompletionDeliversNothingAfterTheCancel() {
        for round in 0..<1_000 {
            let upstream = ManualPublisher<Int, Never>()
            let recorder = Recorder<[Int], Never>(initialDemand: nil)
            upstream.collect().subscribe(recorder)
            recorder.request(.max(1))
            upstream.send(1)
            runConcurrently(threads: 2, timeout: 60) { thread in
                if thread == 0 {
                    recorder.cancel()
                } else {
                    upstream.send(completion: .finished)
                }
            }
            let events = recorder.events
            let delivered: [Event<[Int], Never>] = [.subscription("Collect"), .value([1]), .completion(.finished)]
            let allowed = [Array(delivered.prefix(1)), Array(delivered.prefix(2)), delivered]
            XCTAssertTrue(allowed.contains(events), "round \(round): \(events)")
            if !allowed.contains(events) { return }
        }
    }
}
