import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class DematerializeTests: XCTestCase {
    typealias E = UntangleExtras.Event<Int, TestError>

    func testValueEventsBecomeValuesAndACompletionEventEndsTheStreamAndCancelsUpstream() {
        let upstream = ManualPublisher<E, Never>()
        let recorder = Recorder<Int, TestError>()
        upstream.dematerialize().subscribe(recorder)
        upstream.send(.value(1))
        upstream.send(.completion(.failure(TestError(2))))
        upstream.send(.value(3))
        XCTAssertEqual(
            recorder.events, [.subscription("Dematerialize"), .value(1), .completion(.failure(TestError(2)))])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testUpstreamFinishingWithoutACompletionEventFinishes() {
        let recorder = Recorder<Int, TestError>()
        [E.value(1), .value(2)].publisher.dematerialize().subscribe(recorder)
        XCTAssertEqual(
            recorder.events, [.subscription("Dematerialize"), .value(1), .value(2), .completion(.finished)])
    }

    func testRoundTripWithMaterialize() {
        let recorder = Recorder<Int, TestError>()
        [1, 2, 3].publisher.setFailureType(to: TestError.self).materialize().dematerialize().subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("Dematerialize"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testDemandPassesUpstreamOneForOneAndCompletionEventNeedsNoDemand() {
        let upstream = ManualPublisher<E, Never>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.dematerialize().subscribe(recorder)
        XCTAssertEqual(upstream.history, [])
        recorder.request(.max(2))
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        upstream.send(.value(1))
        upstream.send(.completion(.finished))
        XCTAssertEqual(recorder.events, [.subscription("Dematerialize"), .value(1), .completion(.finished)])
    }

    func testCancelCancelsUpstreamAndReleasesTheSubscriber() {
        let upstream = ManualPublisher<E, Never>()
        weak var weakRecorder: Recorder<Int, TestError>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            upstream.dematerialize().subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertNil(weakRecorder)
        _ = subscription
    }
}
