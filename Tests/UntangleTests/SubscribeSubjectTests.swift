import Untangle
import XCTest

final class SubscribeSubjectTests: XCTestCase {
    func testSynchronousPublisherIsRelayedThroughTheSubject() {
        let subject = PassthroughSubject<Int, Never>()
        let downstream = Recorder<Int, Never>()
        subject.subscribe(downstream)
        let connection = [1, 2, 3].publisher.subscribe(subject)
        XCTAssertEqual(
            downstream.events,
            [.subscription("PassthroughSubject"), .value(1), .value(2), .value(3), .completion(.finished)])
        withExtendedLifetime(connection) {}
    }

    func testRequestsUnlimitedUpstreamAndRelaysValuesAndFailure() {
        let subject = PassthroughSubject<Int, TestError>()
        let downstream = Recorder<Int, TestError>()
        subject.subscribe(downstream)
        let upstream = ManualPublisher<Int, TestError>()
        let connection = upstream.subscribe(subject)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(completion: .failure(TestError(5)))
        XCTAssertEqual(
            downstream.events,
            [.subscription("PassthroughSubject"), .value(1), .completion(.failure(TestError(5)))])
        connection.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "cancelling after the completion reached upstream")
    }

    func testCancellingTheConnectionCancelsUpstreamOnce() {
        let subject = PassthroughSubject<Int, Never>()
        let downstream = Recorder<Int, Never>()
        subject.subscribe(downstream)
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        upstream.send(1)
        connection.cancel()
        connection.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(downstream.events, [.subscription("PassthroughSubject"), .value(1)])
        subject.send(2)
        XCTAssertEqual(downstream.values, [1, 2], "the subject itself must keep working")
    }

    func testReleasingTheConnectionCancelsUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        let upstream = ManualPublisher<Int, Never>()
        var connection: AnyCancellable? = upstream.subscribe(subject)
        withExtendedLifetime(connection) {}
        connection = nil
        XCTAssertEqual(upstream.history, [.cancel], "nothing was requested: the subject has no subscriber")
        withExtendedLifetime(subject) {}
    }

    // As in Combine, a PassthroughSubject asks its upstream for values only once a subscriber asked for some.
    func testAPassthroughSubjectRequestsUpstreamAtItsFirstDownstreamDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        XCTAssertEqual(upstream.history, [])
        let waiting = Recorder<Int, Never>(initialDemand: nil)
        subject.subscribe(waiting)
        XCTAssertEqual(upstream.history, [], "a subscriber that requested nothing")
        waiting.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        let cancellable = subject.sink { _ in }
        waiting.request(.max(1))
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "asked once")
        let late = ManualPublisher<Int, Never>()
        let lateConnection = late.subscribe(subject)
        XCTAssertEqual(late.history, [.request(.unlimited)], "asked at once after the first demand")
        withExtendedLifetime((connection, cancellable, lateConnection)) {}
    }

    // Regression: a sink adopted by the subject without a subscription callout also counts as demand.
    func testASinkIsTheFirstDownstreamDemandOfAPassthroughSubject() {
        let subject = PassthroughSubject<Int, Never>()
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        var values: [Int] = []
        let cancellable = subject.sink { values.append($0) }
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(4)
        XCTAssertEqual(values, [4])
        withExtendedLifetime((connection, cancellable)) {}
    }

    func testACurrentValueSubjectRequestsUpstreamAtOnce() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        withExtendedLifetime(connection) {}
    }

    // As in Combine, the connection holds the subject weakly.
    func testTheConnectionDoesNotKeepTheSubjectAlive() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        var connection: AnyCancellable?
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            connection = upstream.subscribe(subject)
        }
        XCTAssertNil(weakSubject)
        XCTAssertEqual(upstream.send(1), .none, "a value after the subject is gone is dropped")
        withExtendedLifetime(connection) {}
    }

    private final class SubscriptionRecordingSubject: Subject, @unchecked Sendable {
        typealias Output = Int
        typealias Failure = Never
        var subscriptions: [String] = []
        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
        func send(_ value: Int) {}
        func send(completion: Subscribers.Completion<Never>) {}
        func send(subscription: Subscription) { subscriptions.append(String(describing: subscription)) }
    }

    func testTheConnectionDescribesItselfAsSubject() {
        let subject = SubscriptionRecordingSubject()
        let connection = ManualPublisher<Int, Never>().subscribe(subject)
        XCTAssertEqual(subject.subscriptions, ["Subject"])
        withExtendedLifetime(connection) {}
    }

    /// As Apple's (issue 29): a completed subject keeps a new upstream, unrequested (nobody asked), until it goes.
    func testACompletedSubjectKeepsTheNewUpstreamUntilItGoes() {
        var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
        subject?.send(completion: .finished)
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject!)
        XCTAssertEqual(upstream.history, [])
        subject = nil
        XCTAssertEqual(upstream.history, [.cancel])
        withExtendedLifetime(connection) {}
    }

    func testFirstCompletionFromSeveralUpstreamsWins() {
        let subject = PassthroughSubject<Int, Never>()
        let downstream = Recorder<Int, Never>()
        subject.subscribe(downstream)
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let connections = [first.subscribe(subject), second.subscribe(subject)]
        first.send(1)
        second.send(2)
        first.send(completion: .finished)
        second.send(3)
        second.send(completion: .finished)
        XCTAssertEqual(
            downstream.events,
            [.subscription("PassthroughSubject"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(first.history, [.request(.unlimited)])
        XCTAssertEqual(second.history, [.request(.unlimited)])
        withExtendedLifetime(connections) {}
    }

    func testCurrentValueSubjectTakesTheLatestValue() {
        let subject = CurrentValueSubject<String, Never>("initial")
        let connection = ["a", "b"].publisher.subscribe(subject)
        XCTAssertEqual(subject.value, "b")
        withExtendedLifetime(connection) {}
    }

    func testTheSubjectIsReleasedAfterCancel() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        let connection: AnyCancellable
        var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
        weakSubject = subject
        connection = upstream.subscribe(subject!)
        connection.cancel()
        subject = nil
        XCTAssertNil(weakSubject, "the subject outlived the cancelled connection")
    }

    func testTheSubjectIsReleasedAfterCompletion() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let connection: AnyCancellable
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            connection = [1].publisher.subscribe(subject)
        }
        XCTAssertNil(weakSubject, "the subject outlived the completed connection")
        withExtendedLifetime(connection) {}
    }

    /// Regression: the subject used to keep every upstream subscription until it completed, so connect/cancel
    /// cycles on a long-lived subject grew without bound. It keeps them as Apple's does (issue 29), but lets go of a
    /// connection that ended when the next one arrives.
    func testCancelledConnectionsDoNotAccumulateInALongLivedSubject() throws {
        let subject = PassthroughSubject<Int, Never>()
        let first = CapturingPublisher<Int, Never>(holding: .weakly, sendsSubscription: true)
        let firstConnection = first.subscribe(subject)
        XCTAssertNotNil(first.subscriber)
        firstConnection.cancel()
        let second = CapturingPublisher<Int, Never>(holding: .weakly, sendsSubscription: true)
        let secondConnection = second.subscribe(subject)
        XCTAssertNil(first.subscriber, "the subject still retains the cancelled connection")
        XCTAssertNotNil(second.subscriber, "the live connection is kept")
        withExtendedLifetime((subject, secondConnection)) {}
    }
}
