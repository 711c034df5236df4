import Untangle
import XCTest

final class ReplaceErrorTests: XCTestCase {
    func testFailureIsReplacedByTheElementThenFinished() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.replaceError(with: 0).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(
            recorder.events, [.subscription("ReplaceError"), .value(1), .value(0), .completion(.finished)])
    }

    func testReplacementWaitsForOutstandingDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.replaceError(with: 0).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(recorder.events, [.subscription("ReplaceError"), .value(1)], "the only demand was used")
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events, [.subscription("ReplaceError"), .value(1), .value(0), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(1))])
    }

    func testDemandReturnedFromReceiveCounts() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        upstream.replaceError(with: 0).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(recorder.values, [1, 0])
    }

    func testFinishedPassesThrough() {
        let recorder = Recorder<Int, Never>()
        [1].publisher.setFailureType(to: TestError.self).replaceError(with: 0).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("ReplaceError"), .value(1), .completion(.finished)])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, TestError>()
        XCTAssertTrue(recorderIsReleased(upstream.replaceError(with: 1)) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testEquatableWhenTheUpstreamAndOutputAre() {
        let a: Publishers.SetFailureType<Just<Int>, TestError> = Just(1).setFailureType(to: TestError.self)
        XCTAssertEqual(a.replaceError(with: 2), a.replaceError(with: 2))
        XCTAssertNotEqual(a.replaceError(with: 2), a.replaceError(with: 3))
    }

    func testCancelInsideTheReplacementGetsNoFinished() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = recorderCancellingInsideEachValue(upstream.replaceError(with: 9)) {
            upstream.send(completion: .failure(TestError()))
        }
        XCTAssertEqual(recorder.events, [.subscription("ReplaceError"), .value(9)])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension ReplaceErrorTests {
    // OpenCombine/OpenCombine b5e31a4 (test 8b685f7): with an upstream that hands over its subscription late, the
    // demand the subscriber requested was lost. (Apple's Combine has since moved the subscriber's subscription to
    // when the upstream's arrives, as Untangle does; the demand requested then must reach the upstream.)
    func testDemandRequestedWhenALateUpstreamSubscriptionArrivesReachesIt() throws {
        let upstream = CapturingPublisher<Int, TestError>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(10))
        upstream.replaceError(with: 0).subscribe(recorder)
        XCTAssertEqual(recorder.events, [])
        let subscription = LoggingSubscription()
        try XCTUnwrap(upstream.erasedSubscriber).receive(subscription: subscription)
        XCTAssertEqual(subscription.log, ["request(max(10))"])
        XCTAssertEqual(recorder.events, [.subscription("ReplaceError")])
    }
}
