import Foundation
import UntangleSync
import XCTest

@testable import Untangle

/// The pure state of the "single result at completion" subscription, decision by decision.
final class ReducerStateTests: XCTestCase {
    private typealias State = ReducerState<String, Int>

    private func subscribed(_ policy: ReducerUpstreamDemand) -> State {
        var state = State(downstream: "down", policy: policy)
        XCTAssertEqual(state.receivedSubscription(Subscriptions.empty), "down")
        return state
    }

    func testASecondSubscriptionIsRefused() {
        var state = subscribed(.unlimitedOnFirstRequest)
        XCTAssertNil(state.receivedSubscription(Subscriptions.empty))
    }

    func testOnlyTheFirstRequestAsksUpstreamForUnlimited() {
        var state = subscribed(.unlimitedOnFirstRequest)
        XCTAssertNil(state.eagerRequest(), "not eager")
        guard case .requestUpstream(_, .unlimited) = state.request(.max(1)) else { return XCTFail() }
        guard case .none = state.request(.max(5)) else { return XCTFail("asked upstream twice") }
    }

    func testEagerPolicyAsksOnceAtSubscriptionAndIgnoresRequests() {
        var state = subscribed(.unlimitedAtSubscription)
        XCTAssertNotNil(state.eagerRequest())
        XCTAssertNil(state.eagerRequest())
        guard case .none = state.request(.max(1)) else { return XCTFail() }
    }

    func testPassThroughForwardsEveryRequest() {
        var state = subscribed(.passThrough)
        guard case .requestUpstream(_, .max(2)) = state.request(.max(2)) else { return XCTFail() }
        guard case .requestUpstream(_, .max(3)) = state.request(.max(3)) else { return XCTFail() }
    }

    func testAResultWithoutDemandWaitsForTheFirstRequest() {
        var state = subscribed(.unlimitedOnFirstRequest)
        let finish = state.finish(7, needsDemand: true)
        XCTAssertNotNil(finish.upstream, "the upstream subscription is handed out to be released")
        XCTAssertNil(finish.deliver)
        guard case .deliver("down", 7) = state.request(.max(1)) else { return XCTFail() }
        guard case .none = state.request(.max(1)) else { return XCTFail("delivered twice") }
    }

    func testAResultWithDemandIsDeliveredAtOnce() {
        var state = subscribed(.unlimitedOnFirstRequest)
        _ = state.request(.max(1))
        let finish = state.finish(7, needsDemand: true)
        XCTAssertEqual(finish.deliver?.0, "down")
        XCTAssertEqual(finish.deliver?.1, 7)
        XCTAssertNil(state.downstream, "the downstream is released with the delivery")
    }

    func testABareCompletionNeedsNoDemand() {
        var state = subscribed(.unlimitedOnFirstRequest)
        XCTAssertEqual(state.finish(0, needsDemand: false).deliver?.1, 0)
    }

    func testPassThroughEmissionsConsumeDemand() {
        var state = subscribed(.passThrough)
        _ = state.request(.max(1))
        XCTAssertEqual(state.willEmit(), "down")
        XCTAssertNil(state.finish(9, needsDemand: true).deliver, "the only demand was used by the emission")
        state.didEmit(returning: .none)
        guard case .deliver(_, 9) = state.request(.max(1)) else { return XCTFail() }
    }

    func testCancelDropsThePendingResultAndTheDownstream() {
        var state = subscribed(.unlimitedOnFirstRequest)
        _ = state.finish(7, needsDemand: true)
        let cancel = state.cancel()
        XCTAssertEqual(cancel.released.0, "down")
        XCTAssertEqual(cancel.released.1, 7)
        XCTAssertNil(cancel.upstream, "already released by the finish")
        guard case .none = state.request(.max(1)) else { return XCTFail("delivered after cancel") }
    }

    func testFinishAfterCancelDeliversNothing() {
        var state = subscribed(.unlimitedOnFirstRequest)
        _ = state.request(.max(1))
        XCTAssertNotNil(state.cancel().upstream)
        XCTAssertNil(state.finish(7, needsDemand: true).deliver)
    }
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

    func testCancelRacingCompletionDeliversAllOrNothing() {
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
            XCTAssertTrue(events == [.subscription("Collect")] || events == delivered, "round \(round): \(events)")
            if events.count == 2 { return }
        }
    }
}
