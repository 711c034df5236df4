import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class MaterializeTests: XCTestCase {
    typealias E = UntangleExtras.Event<Int, TestError>

    func testValuesAndFinishBecomeEventsThenTheStreamFinishes() {
        let recorder = Recorder<E, Never>()
        [1, 2].publisher.setFailureType(to: TestError.self).materialize().subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [
                .subscription("Materialize"), .value(.value(1)), .value(.value(2)), .value(.completion(.finished)),
                .completion(.finished),
            ])
    }

    func testFailureBecomesAnEventAndTheStreamFinishes() {
        let recorder = Recorder<E, Never>()
        Fail<Int, TestError>(error: TestError(4)).materialize().subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Materialize"), .value(.completion(.failure(TestError(4)))), .completion(.finished)])
    }

    func testDemandPassesUpstreamAndTheCompletionEventWaitsForDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<E, Never>(initialDemand: .max(1))
        upstream.materialize().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        upstream.send(1)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Materialize"), .value(.value(1))])
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events,
            [.subscription("Materialize"), .value(.value(1)), .value(.completion(.finished)), .completion(.finished)])
        // The upstream had finished: the request that made room for the completion event does not reach it.
        XCTAssertEqual(upstream.history, [.request(.max(1))])
    }

    func testASecondUpstreamSubscriptionIsCancelledAndTheFirstKept() {
        let upstream = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<E, Never>(initialDemand: .max(1))
        upstream.materialize().subscribe(recorder)
        let first = LoggingSubscription()
        let second = LoggingSubscription()
        upstream.subscriber?.receive(subscription: first)
        upstream.subscriber?.receive(subscription: second)
        XCTAssertEqual(first.log, ["request(max(1))"])
        XCTAssertEqual(second.log, ["cancel"])
        XCTAssertEqual(recorder.events, [.subscription("Materialize")])
        recorder.request(.max(2))
        XCTAssertEqual(first.log, ["request(max(1))", "request(max(2))"], "requests still go to the first")
        XCTAssertEqual(second.log, ["cancel"])
    }

    func testDemandReturnedFromReceiveGoesUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<E, Never>(initialDemand: .max(1)) { _, _ in .max(2) }
        upstream.materialize().subscribe(recorder)
        // As through Combine's map: the demand comes back as `receive(_:)`'s result, not as a separate request.
        XCTAssertEqual(upstream.send(1), .max(2))
        XCTAssertEqual(upstream.history, [.request(.max(1))])
        XCTAssertEqual(upstream.demand, .max(2), "the upstream owes the two values the subscriber asked for")
    }

    // CombineCommunity/CombineExt 547d11a: cancelling a materialized stream did not cancel its upstream.
    func testCancelCancelsUpstreamOnceAndReleasesTheSubscriber() {
        let upstream = ManualPublisher<Int, TestError>()
        weak var weakRecorder: Recorder<E, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<E, Never>()
            weakRecorder = recorder
            upstream.materialize().subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        subscription?.cancel()
        upstream.send(1)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder)
        _ = subscription
    }

    func testCompletionReleasesTheSubscriber() {
        weak var weakRecorder: Recorder<E, Never>?
        do {
            let recorder = Recorder<E, Never>()
            weakRecorder = recorder
            Just(1).setFailureType(to: TestError.self).materialize().subscribe(recorder)
        }
        XCTAssertNil(weakRecorder)
    }
}

final class MaterializeConcurrencyTests: XCTestCase {
    /// The completion event is produced on the upstream's thread while another thread makes the request that gives
    /// it room: it is delivered exactly once, followed by the finish, whichever wins.
    func testCompletionEventRacingARequestIsDeliveredOnceThenFinishes() {
        for _ in 0..<200 {
            let upstream = ManualPublisher<Int, TestError>()
            let detector = OverlapDetector()
            let recorder = Recorder<UntangleExtras.Event<Int, TestError>, Never>(initialDemand: .max(1)) { _, _ in
                detector.around {}
                return .none
            }
            upstream.materialize().subscribe(recorder)
            upstream.send(1)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    upstream.send(completion: .failure(TestError(2)))
                } else {
                    recorder.request(.max(1))
                }
            }
            XCTAssertEqual(
                recorder.events,
                [
                    .subscription("Materialize"), .value(.value(1)), .value(.completion(.failure(TestError(2)))),
                    .completion(.finished),
                ])
            XCTAssertEqual(detector.overlaps, 0)
        }
    }
}
