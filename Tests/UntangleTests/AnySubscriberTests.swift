import Untangle
import XCTest

final class AnySubscriberTests: XCTestCase {
    // MARK: Wrapping a subscriber

    func testWrappingForwardsEverySignalAndTheReturnedDemand() {
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2), onValue: { _, value in .max(value) })
        let erased = AnySubscriber(recorder)
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(erased)
        XCTAssertEqual(upstream.send(3), .max(3))
        XCTAssertEqual(upstream.send(0), .none)
        upstream.send(completion: .failure(TestError(6)))
        XCTAssertEqual(
            recorder.events,
            [.subscription("ManualSubscription"), .value(3), .value(0), .completion(.failure(TestError(6)))])
        XCTAssertEqual(upstream.history, [.request(.max(2))])
    }

    func testWrappingKeepsTheWrappedIdentityAndDescription() {
        let recorder = Recorder<Int, Never>()
        let erased = AnySubscriber(recorder)
        XCTAssertEqual(erased.combineIdentifier, recorder.combineIdentifier)
        XCTAssertEqual(erased.combineIdentifier, CombineIdentifier(recorder))
        XCTAssertEqual(erased.description, String(describing: Recorder<Int, Never>.self))
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        XCTAssertEqual(AnySubscriber(sink).description, "Sink")
        XCTAssertEqual(AnySubscriber(sink).playgroundDescription as? String, "Sink")
        XCTAssertEqual(AnySubscriber(sink).customMirror.children.count, 0)
    }

    func testWrappingAnAnySubscriberKeepsItsIdentity() {
        let closureBased = AnySubscriber<Int, Never>()
        let rewrapped = AnySubscriber(closureBased)
        XCTAssertEqual(rewrapped.combineIdentifier, closureBased.combineIdentifier)
        XCTAssertEqual(rewrapped.description, "Anonymous AnySubscriber")
    }

    func testWrappingASubscriberDirectlyOnAPublisher() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        [1, 2].publisher.subscribe(AnySubscriber(recorder))
        XCTAssertEqual(recorder.events, [.subscription("[1, 2]")])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.events, [.subscription("[1, 2]"), .value(1), .value(2), .completion(.finished)])
    }

    // MARK: Closures

    func testClosuresReceiveEverySignal() {
        var log: [String] = []
        let erased = AnySubscriber<Int, TestError>(
            receiveSubscription: { subscription in
                log.append("subscription(\(subscription))")
                subscription.request(.max(1))
            },
            receiveValue: { value in
                log.append("value(\(value))")
                return .max(4)
            },
            receiveCompletion: { completion in log.append("\(completion)") })
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(erased)
        XCTAssertEqual(upstream.send(1), .max(4))
        upstream.send(completion: .finished)
        XCTAssertEqual(log, ["subscription(ManualSubscription)", "value(1)", "finished"])
        XCTAssertEqual(upstream.history, [.request(.max(1))])
    }

    func testMissingClosuresDoNothingAndRequestNothing() {
        let erased = AnySubscriber<Int, TestError>()
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(erased)
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [])
        XCTAssertEqual(erased.receive(2), .none)
    }

    func testClosureBasedSubscribersHaveDistinctIdentitiesAndAnAnonymousDescription() {
        let a = AnySubscriber<Int, Never>(receiveValue: { _ in .none })
        let b = AnySubscriber<Int, Never>(receiveValue: { _ in .none })
        XCTAssertNotEqual(a.combineIdentifier, b.combineIdentifier)
        XCTAssertEqual(a.description, "Anonymous AnySubscriber")
        XCTAssertEqual(a.customMirror.children.count, 0)
    }

    // MARK: Subjects

    func testWrappingASubjectRequestsUnlimitedAndForwardsValuesAndCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        let downstream = Recorder<Int, TestError>()
        subject.subscribe(downstream)
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(AnySubscriber(subject))
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(2)
        upstream.send(completion: .failure(TestError(3)))
        XCTAssertEqual(
            downstream.events,
            [
                .subscription("PassthroughSubject"), .value(1), .value(2),
                .completion(.failure(TestError(3))),
            ])
    }

    /// As Apple's (issue 29): a completed subject keeps the upstream, unrequested, until the subject goes.
    func testWrappingACompletedSubjectKeepsTheUpstreamUntilTheSubjectGoes() {
        var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
        subject?.send(completion: .finished)
        let upstream = ManualPublisher<Int, Never>()
        upstream.subscribe(AnySubscriber(subject!))
        XCTAssertEqual(upstream.history, [])
        subject = nil
        XCTAssertEqual(upstream.history, [.cancel])
    }

    // As in Combine: a subject wrapped in an AnySubscriber is described as "Subject", mirrors the subject
    // subscriber, and ignores what arrives before its subscription.
    func testWrappingASubjectDescribesItselfAsSubjectAndIgnoresSignalsBeforeItsSubscription() {
        let subject = PassthroughSubject<Int, Never>()
        let downstream = Recorder<Int, Never>()
        subject.subscribe(downstream)
        let erased = AnySubscriber(subject)
        XCTAssertEqual(erased.description, "Subject")
        XCTAssertEqual(erased.playgroundDescription as? String, "Subject")
        XCTAssertEqual(
            erased.customMirror.children.map(\.label), ["downstreamSubject", "upstreamSubscription", "subject"])
        XCTAssertEqual(erased.receive(1), .none)
        erased.receive(completion: .finished)
        XCTAssertEqual(downstream.events, [.subscription("PassthroughSubject")], "nothing before the subscription")
        let upstream = ManualPublisher<Int, Never>()
        upstream.subscribe(erased)
        upstream.send(2)
        XCTAssertEqual(downstream.values, [2])
    }

    func testTheMirrorIsTheWrappedSubscribers() {
        let closureBased = AnySubscriber<Int, Never>()
        XCTAssertTrue(closureBased.customMirror.subjectType == String.self)
        let recorder = Recorder<Int, Never>()
        XCTAssertTrue(AnySubscriber(recorder).customMirror.subjectType == Recorder<Int, Never>.self)
    }

    func testWrappingACurrentValueSubjectUpdatesItsValue() {
        let subject = CurrentValueSubject<Int, Never>(0)
        [1, 2, 3].publisher.subscribe(AnySubscriber(subject))
        XCTAssertEqual(subject.value, 3)
    }
}
