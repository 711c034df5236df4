import Untangle
import UntangleSync
import XCTest

/// Records the events of an `_Introspection` as strings.
private final class EventLog: _Introspection, @unchecked Sendable {
    private let lock = Lock()
    private var _events: [String] = []
    private var _publishers: [String] = []
    var events: [String] { lock.withLock { _events } }
    /// The type names of the publishers that received a subscriber, in order.
    var publishers: [String] { lock.withLock { _publishers } }
    private func log(_ event: String) { lock.withLock { _events.append(event) } }

    func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        let name = String(describing: Upstream.self)
        lock.withLock { _publishers.append(String(name.prefix { $0 != "<" })) }
        log("willSubscribe \(subscriber)")
    }
    func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {
        log("didSubscribe \(subscriber)")
    }
    func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription) {
        log("willReceive subscription \(subscription)")
    }
    func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription) {
        log("didReceive subscription \(subscription)")
    }
    func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {
        log("willReceive \(input)")
    }
    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {
        log("didReceive \(input) -> \(resultingDemand)")
    }
    func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        log("willComplete")
    }
    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        log("didComplete")
    }
    func willRequest(subscription: Subscription, _ demand: Subscribers.Demand) { log("willRequest \(demand)") }
    func didRequest(subscription: Subscription, _ demand: Subscribers.Demand) { log("didRequest \(demand)") }
    func willCancel(subscription: Subscription) { log("willCancel") }
    func didCancel(subscription: Subscription) { log("didCancel") }
}

/// Implements nothing: every event has a default.
private final class Silent: _Introspection {}

final class IntrospectionTests: XCTestCase {
    func testEnableDisableAndIsEnabledPerObject() {
        let first = EventLog()
        let second = Silent()
        XCTAssertFalse(first.isEnabled)
        first.enable()
        first.enable()
        XCTAssertTrue(first.isEnabled)
        XCTAssertFalse(second.isEnabled)
        second.enable()
        first.disable()
        XCTAssertFalse(first.isEnabled)
        XCTAssertTrue(second.isEnabled)
        second.disable()
        XCTAssertFalse(second.isEnabled)
    }

    func testEverySignalOfASubscriptionMadeWhileEnabledIsReported() {
        let log = EventLog()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1), onValue: { _, _ in .max(2) })
        log.enable()
        upstream.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(2))
        upstream.send(completion: .finished)
        log.disable()
        let name = String(describing: recorder)
        XCTAssertEqual(
            log.events,
            [
                "willSubscribe \(name)", "willReceive subscription ManualSubscription", "willRequest max(1)",
                "didRequest max(1)", "didReceive subscription ManualSubscription", "didSubscribe \(name)",
                "willReceive 1", "didReceive 1 -> max(2)", "willComplete", "didComplete",
            ])
        XCTAssertEqual(recorder.events, [.subscription("ManualSubscription"), .value(1), .completion(.finished)])
        XCTAssertEqual(upstream.history, [.request(.max(1))])
    }

    // As in Combine, map has a subscriber of its own ("Map") that the introspection sees between the upstream and the
    // downstream, although the downstream receives the upstream's own subscription.
    func testAMapIsObservedThroughItsOwnSubscriber() {
        let log = EventLog()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1), onValue: { _, _ in .max(2) })
        log.enable()
        upstream.map { $0 * 10 }.subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(2))
        log.disable()
        let name = String(describing: recorder)
        XCTAssertEqual(log.publishers, ["Map", "ManualPublisher"])
        XCTAssertEqual(
            log.events,
            [
                "willSubscribe \(name)", "willSubscribe Map", "willReceive subscription ManualSubscription",
                "willReceive subscription ManualSubscription", "willRequest max(1)", "didRequest max(1)",
                "didReceive subscription ManualSubscription", "didReceive subscription ManualSubscription",
                "didSubscribe Map", "didSubscribe \(name)", "willReceive 1", "willReceive 10",
                "didReceive 10 -> max(2)", "didReceive 1 -> max(2)",
            ])
        XCTAssertEqual(recorder.events, [.subscription("ManualSubscription"), .value(10)])
        XCTAssertEqual(upstream.history, [.request(.max(1))])
    }

    // As in Combine, subscribing to an AnyPublisher is observed once, as the eraser's (not again as the wrapped
    // publisher's), however many times it was erased.
    func testAnErasedPublisherIsObservedOnceAsTheEraser() {
        let log = EventLog()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        log.enable()
        upstream.eraseToAnyPublisher().eraseToAnyPublisher().subscribe(recorder)
        log.disable()
        let name = String(describing: recorder)
        XCTAssertEqual(log.publishers, ["AnyPublisher"])
        XCTAssertEqual(
            log.events,
            [
                "willSubscribe \(name)", "willReceive subscription ManualSubscription",
                "didReceive subscription ManualSubscription", "didSubscribe \(name)",
            ])
        XCTAssertEqual(recorder.events, [.subscription("ManualSubscription")])
    }

    // A subject taps the subscriber it receives unless it is a tap already: the eraser must hand it `subscribe`'s
    // tap as it came (not in an `AnySubscriber`), or the subscription would be reported twice.
    func testAnErasedSubjectReportsTheSubscriptionOnce() {
        let log = EventLog()
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        log.enable()
        subject.eraseToAnyPublisher().subscribe(recorder)
        log.disable()
        XCTAssertEqual(log.events.filter { $0.hasPrefix("willReceive subscription") }.count, 1)
        XCTAssertEqual(log.events.filter { $0.hasPrefix("didReceive subscription") }.count, 1)
        XCTAssertEqual(recorder.events, [.subscription("PassthroughSubject")])
    }

    // A sink on a subject is one object, made without `subscribe` (SubjectSink.swift); while an introspection is
    // enabled it must be observed as `Publisher.sink`'s is (here through an eraser, which keeps the generic path):
    // the same events, for each kind of subject (the current-value one delivers its value while subscribing).
    func testASinkOnASubjectIsObservedAsAnyOtherSinkWhileAnIntrospectionIsEnabled() {
        func events<S: Subject<Int, Never>>(
            _ makeSubject: () -> S, sink: (S, @escaping (Int) -> Void) -> AnyCancellable
        )
            -> (oneObject: [String], generic: [String], publishers: [String], received: [Int])
        {
            var received: [Int] = []
            var logs: [EventLog] = []
            for erased in [false, true] {
                let subject = makeSubject()
                let log = EventLog()
                log.enable()
                let cancellable =
                    erased
                    ? subject.eraseToAnyPublisher().sink { received.append($0) }
                    : sink(subject) { received.append($0) }
                subject.send(7)
                cancellable.cancel()
                subject.send(8)
                log.disable()
                logs.append(log)
            }
            return (logs[0].events, logs[1].events, logs[0].publishers, received)
        }
        let passthrough = events({ PassthroughSubject<Int, Never>() }, sink: { $0.sink(receiveValue: $1) })
        XCTAssertEqual(passthrough.publishers, ["PassthroughSubject"])
        XCTAssertEqual(
            passthrough.oneObject,
            [
                "willSubscribe Sink", "willReceive subscription PassthroughSubject", "willRequest unlimited",
                "didRequest unlimited", "didReceive subscription PassthroughSubject", "didSubscribe Sink",
                "willReceive 7", "didReceive 7 -> max(0)", "willCancel", "didCancel",
            ])
        XCTAssertEqual(passthrough.oneObject, passthrough.generic)
        XCTAssertEqual(passthrough.received, [7, 7])
        let current = events(
            { CurrentValueSubject<Int, Never>(1) },
            sink: { subject, value in subject.sink(receiveCompletion: { _ in }, receiveValue: value) })
        XCTAssertEqual(current.publishers, ["CurrentValueSubject"])
        XCTAssertEqual(current.oneObject, current.generic)
        XCTAssertEqual(
            current.oneObject.filter { $0.hasPrefix("willReceive ") && !$0.contains("subscription") },
            ["willReceive 1", "willReceive 7"])
        XCTAssertEqual(current.received, [1, 7, 1, 7])

        final class Model { @Published var level = 1 }
        let model = Model()
        let log = EventLog()
        log.enable()
        let cancellable = model.$level.sink { _ in }
        model.level = 2
        cancellable.cancel()
        log.disable()
        XCTAssertEqual(
            log.events.filter { $0.hasPrefix("willReceive ") && !$0.contains("subscription") },
            ["willReceive 1", "willReceive 2"])
        XCTAssertEqual(log.events.first, "willSubscribe Sink")
    }

    func testSubscriptionsMadeWhileDisabledAreNotObservedAndDisablingStopsTheEvents() {
        let log = EventLog()
        let before = ManualPublisher<Int, Never>()
        let beforeRecorder = Recorder<Int, Never>()
        before.subscribe(beforeRecorder)
        log.enable()
        before.send(1)
        let during = ManualPublisher<Int, Never>()
        let duringRecorder = Recorder<Int, Never>()
        during.subscribe(duringRecorder)
        log.disable()
        during.send(2)
        duringRecorder.cancel()
        XCTAssertFalse(log.events.contains("willReceive 1"), "subscribed before enabling")
        XCTAssertFalse(log.events.contains("willReceive 2"), "sent after disabling")
        XCTAssertFalse(log.events.contains("willCancel"))
        XCTAssertEqual(duringRecorder.values, [2])
        XCTAssertEqual(during.history, [.request(.unlimited), .cancel])
    }

    func testTheTapsKeepTheDescriptionsAndIdentifiersOfWhatTheyWrap() {
        let log = Silent()
        let publisher = CapturingPublisher<Int, Never>(sendsSubscription: true)
        let recorder = Recorder<Int, Never>()
        log.enable()
        publisher.subscribe(recorder)
        log.disable()
        let tapped = publisher.subscriber as? any Subscriber & CustomStringConvertible
        XCTAssertFalse(publisher.subscriber as AnyObject === recorder, "the publisher receives a tap")
        XCTAssertEqual(tapped?.description, String(describing: recorder))
        XCTAssertEqual(
            (publisher.subscriber as? CustomCombineIdentifierConvertible)?.combineIdentifier,
            recorder.combineIdentifier)
        let subscription = recorder.subscription
        XCTAssertEqual(subscription.map { String(describing: $0) }, "Empty")
        XCTAssertEqual(subscription?.combineIdentifier, Subscriptions.empty.combineIdentifier)
    }

    func testEnablingFromManyThreadsWhileSubscribingIsSafe() {
        let logs = (0..<4).map { _ in EventLog() }
        let subject = PassthroughSubject<Int, Never>()
        runConcurrently(threads: 8) { thread in
            for i in 0..<200 {
                if thread < 4 {
                    logs[thread].enable()
                    logs[thread].disable()
                } else {
                    let cancellable = subject.sink { _ in }
                    subject.send(i)
                    cancellable.cancel()
                }
            }
        }
        for log in logs {
            XCTAssertFalse(log.isEnabled)
        }
    }
}
