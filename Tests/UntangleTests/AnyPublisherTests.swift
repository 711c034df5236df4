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

    func testAnErasedChainDeliversEveryValueAndReturnsEachStagesDemand() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2), onValue: { _, _ in .max(3) })
        upstream.eraseToAnyPublisher()
            .filter { $0.isMultiple(of: 2) }.eraseToAnyPublisher()
            .map { $0 * 10 }.eraseToAnyPublisher()
            .subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(1))
        XCTAssertEqual(upstream.send(2), .max(3))
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(
            recorder.events,
            [.subscription("ManualSubscription"), .value(20), .completion(.failure(TestError(4)))])
        XCTAssertEqual(upstream.history, [.request(.max(2))])
    }

    func testTheWrappedPublisherSeesTheSubscribersIdentityAndDescription() {
        let inspector = SubscriberInspector<Int>()
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        inspector.eraseToAnyPublisher().subscribe(sink)
        inspector.eraseToAnyPublisher().filter { _ in true }.eraseToAnyPublisher().subscribe(sink)
        XCTAssertEqual(inspector.seen.map(\.identifier), [CombineIdentifier(sink), CombineIdentifier(sink)])
        XCTAssertEqual(inspector.seen.map(\.description), ["Sink", "Filter"])
        XCTAssertEqual(inspector.seen.map(\.mirrorChildren), [0, 0])
    }

    func testASinkOnAnErasedSubjectReceivesValuesUntilCancelled() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let cancellable = subject.eraseToAnyPublisher().map { $0 + 1 }.eraseToAnyPublisher().sink {
            received.append($0)
        }
        subject.send(1)
        subject.send(2)
        cancellable.cancel()
        subject.send(3)
        XCTAssertEqual(received, [2, 3])
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

/// Records what a publisher sees of each subscriber it receives (its identity, description and mirror), then
/// completes it.
private final class SubscriberInspector<Output>: Publisher, @unchecked Sendable {
    typealias Failure = Never
    struct Seen {
        let identifier: CombineIdentifier
        let description: String
        let mirrorChildren: Int
    }
    private(set) var seen: [Seen] = []

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        seen.append(
            Seen(
                identifier: subscriber.combineIdentifier, description: String(describing: subscriber),
                mirrorChildren: Mirror(reflecting: subscriber).children.count))
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
    }
}
