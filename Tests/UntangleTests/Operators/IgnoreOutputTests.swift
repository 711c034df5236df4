import Untangle
import XCTest

final class IgnoreOutputTests: XCTestCase {
    func testTheSubscriberGetsTheUpstreamsOwnSubscriptionThenUnlimitedIsAsked() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Never, TestError>(initialDemand: .max(3))
        upstream.ignoreOutput().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(3)), .request(.unlimited)], "the subscriber's request first")
        XCTAssertEqual(upstream.send(1), .none)
        recorder.request(.max(1))
        XCTAssertEqual(
            upstream.history, [.request(.max(3)), .request(.unlimited), .request(.max(1))],
            "requests go straight upstream")
        upstream.send(completion: .failure(TestError(2)))
        XCTAssertEqual(
            recorder.events, [.subscription("ManualSubscription"), .completion(.failure(TestError(2)))])
    }

    func testSynchronousUpstreamCompletesAfterTheSubscription() {
        let recorder = Recorder<Never, Never>(initialDemand: nil)
        (1...3).publisher.ignoreOutput().subscribe(recorder)
        XCTAssertEqual(recorder.events.count, 2)
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testEveryCompletionTheUpstreamSendsIsPassedOnAsInCombine() {
        let upstream = CapturingPublisher<Int, TestError>()
        let recorder = Recorder<Never, TestError>(initialDemand: nil)
        upstream.ignoreOutput().subscribe(recorder)
        let subscriber = upstream.erasedSubscriber
        subscriber?.receive(completion: .finished)
        subscriber?.receive(completion: .failure(TestError(1)))
        XCTAssertEqual(recorder.events, [.completion(.finished), .completion(.failure(TestError(1)))])
    }

    func testTheUpstreamIsAskedEvenAfterTheSubscriberCancelledInReceiveSubscription() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Never, Never>(
            initialDemand: nil,
            onSubscription: { _, subscription in
                subscription.cancel()
            })
        upstream.ignoreOutput().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.cancel, .request(.unlimited)], "as in Combine; harmless once cancelled")
    }

    func testCancelReachesTheUpstreamAndReleases() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.ignoreOutput(), initialDemand: nil) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testDescriptionAndMirrorOfWhatTheUpstreamSees() throws {
        let upstream = CapturingPublisher<Int, Never>()
        upstream.ignoreOutput().subscribe(Recorder<Never, Never>(initialDemand: nil))
        let subscriber = try XCTUnwrap(upstream.subscriber)
        XCTAssertEqual(String(describing: subscriber), "IgnoreOutput")
        XCTAssertEqual(
            (subscriber as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "IgnoreOutput")
        XCTAssertEqual((subscriber as? CustomReflectable)?.customMirror.children.count, 0)
        XCTAssertFalse(subscriber is Subscription)
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).ignoreOutput(), Just(1).ignoreOutput())
    }
}
