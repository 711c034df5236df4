import Untangle
import XCTest

final class AnyPublisherTests: XCTestCase {
    private func box<Output, Failure>(of publisher: AnyPublisher<Output, Failure>) -> ObjectIdentifier? {
        guard let box = Mirror(reflecting: publisher).children.first(where: { $0.label == "box" })?.value else {
            return nil
        }
        return ObjectIdentifier(box as AnyObject)
    }

    func testAttachesTheSubscriberDirectlyToTheWrappedPublisher() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        [1, 2, 3].publisher.eraseToAnyPublisher().subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1)])
        recorder.request(.unlimited)
        XCTAssertEqual(
            recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testDemandAndCancelPassStraightUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2), onValue: { _, _ in .max(1) })
        AnyPublisher(upstream).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        upstream.send(completion: .failure(TestError(2)))
        recorder.request(.max(3))
        recorder.cancel()
        XCTAssertEqual(
            recorder.events,
            [.subscription("ManualSubscription"), .value(1), .completion(.failure(TestError(2)))])
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(3)), .cancel])
    }

    func testEachSubscriptionIsIndependent() {
        let erased = Just(5).eraseToAnyPublisher()
        let first = Recorder<Int, Never>()
        let second = Recorder<Int, Never>(initialDemand: nil)
        erased.subscribe(first)
        erased.subscribe(second)
        XCTAssertEqual(first.events, [.subscription("Just"), .value(5), .completion(.finished)])
        XCTAssertEqual(second.events, [.subscription("Just")])
    }

    func testErasingAnAnyPublisherDoesNotWrapItTwice() {
        let erased = [1].publisher.eraseToAnyPublisher()
        XCTAssertNotNil(box(of: erased))
        XCTAssertEqual(box(of: erased.eraseToAnyPublisher()), box(of: erased))
        XCTAssertEqual(box(of: AnyPublisher(erased)), box(of: erased))
    }

    func testDescription() {
        let erased = Just(1).eraseToAnyPublisher()
        XCTAssertEqual(erased.description, "AnyPublisher")
        XCTAssertEqual(erased.playgroundDescription as? String, "AnyPublisher")
    }

    func testSubscriptionReleasesSubscriber() {
        assertSubscriptionReleasesSubscriber([1, 2].publisher.eraseToAnyPublisher())
        assertSubscriptionReleasesSubscriber([1, 2].publisher.eraseToAnyPublisher(), initialDemand: .max(1)) {
            $0.cancel()
        }
    }
}
