import Untangle
import XCTest

final class IgnoreOutputTests: XCTestCase {
    func testAsksUnlimitedAtSubscriptionAndForwardsTheCompletionWithoutDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Never, TestError>(initialDemand: nil)
        upstream.ignoreOutput().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.send(1), .none)
        recorder.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "requests are not passed on")
        upstream.send(completion: .failure(TestError(2)))
        XCTAssertEqual(recorder.events, [.subscription("IgnoreOutput"), .completion(.failure(TestError(2)))])
    }

    func testSynchronousUpstreamCompletesAfterTheSubscription() {
        let recorder = Recorder<Never, Never>(initialDemand: nil)
        (1...3).publisher.ignoreOutput().subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("IgnoreOutput"), .completion(.finished)])
    }

    func testCancelInsideReceiveSubscriptionPreventsTheUpstreamRequest() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Never, Never>(
            initialDemand: nil,
            onSubscription: { _, subscription in
                subscription.cancel()
            })
        upstream.ignoreOutput().subscribe(recorder)
        XCTAssertEqual(upstream.history, [.cancel])
    }

    func testCancelAndRelease() {
        let upstream = ManualPublisher<Int, Never>()
        XCTAssertTrue(recorderIsReleased(upstream.ignoreOutput()) { $0.cancel() })
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).ignoreOutput(), Just(1).ignoreOutput())
    }
}
