import Foundation
import Untangle
import UntangleSync
import XCTest

final class CurrentValueSubjectTests: XCTestCase {
    func testNewSubscriberReceivesTheCurrentValueOnItsFirstRequest() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        subject.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("CurrentValueSubject")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("CurrentValueSubject"), .value(1)])
    }

    // As in Combine: after a completion the setter still changes the value (nothing is sent); send(_:) does not.
    // OpenCombine/OpenCombine c9e7293: after the completion, send(_:) changed the value (and the setter did not).
    func testValueSetterChangesTheValueAfterCompletionButSendDoesNot() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let recorder = Recorder<Int, Never>()
        subject.subscribe(recorder)
        subject.send(completion: .finished)
        subject.value = 42
        XCTAssertEqual(subject.value, 42)
        subject.send(7)
        XCTAssertEqual(subject.value, 42)
        XCTAssertEqual(recorder.events, [.subscription("CurrentValueSubject"), .value(0), .completion(.finished)])
    }

    func testUpstreamSubscriptionsAreRequestedAtOnceWithoutSubscribers() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(3)
        XCTAssertEqual(subject.value, 3)
        withExtendedLifetime(connection) {}
    }

    func testSubscriptionMirrorShowsTheSubjectTheSubscriberAndTheDemand() throws {
        let subject = CurrentValueSubject<Int, Never>(5)
        let recorder = Recorder<Int, Never>(initialDemand: .max(12))
        subject.subscribe(recorder)
        subject.send(1)
        let subscription = try XCTUnwrap(recorder.subscription)
        let mirror = try XCTUnwrap((subscription as? CustomReflectable)?.customMirror)
        let children = mirror.children.map { "\($0.label ?? ""): \($0.value)" }
        XCTAssertEqual(children.count, 4)
        XCTAssertTrue(children[0].hasPrefix("parent: ") && children[0].contains("CurrentValueSubject<Int, Never>"))
        XCTAssertEqual(children[2], "demand: max(10)")
        subject.send(completion: .finished)
        let ended = try XCTUnwrap((subscription as? CustomReflectable)?.customMirror).children.map {
            "\($0.label ?? ""): \($0.value)"
        }
        XCTAssertEqual(ended, ["parent: nil", "downstream: nil", "demand: max(10)", "subject: nil"])
    }

    func testValueSetterSendsAndGetterReads() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let recorder = Recorder<Int, Never>()
        subject.subscribe(recorder)
        subject.value = 2
        subject.send(3)
        XCTAssertEqual(subject.value, 3)
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    // Combine keeps the latest value for a subscriber without demand and delivers it on the next request.
    func testSubscriberWithoutDemandGetsTheLatestValueWhenItAsks() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        subject.subscribe(recorder)
        subject.send(2)
        subject.send(3)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.max(5))
        XCTAssertEqual(recorder.values, [1, 3])
        subject.send(4)
        XCTAssertEqual(recorder.values, [1, 3, 4])
    }

    // Regression (CombineX's CurrentValueSubjectSpec, "no guarantee of synchronous backpressure"): a value sent while
    // the subscriber had no demand was delivered as soon as its receive(_:) returned demand. Combine delivers a missed
    // value only on the next request(); demand returned from receive(_:) goes to the next value sent, which replaces
    // the missed one.
    func testAMissedValueIsNotDeliveredByTheDemandReceiveReturns() {
        let (subject, recorder) = subscriberMissingOne(returning: .max(2))
        XCTAssertEqual(recorder.values, [0], "1 was sent without demand; the returned demand does not deliver it")
        subject.send(2)
        XCTAssertEqual(recorder.values, [0, 2])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [0, 2], "2 replaced the missed value: nothing waits for the request")
        subject.send(3)
        subject.send(4)
        XCTAssertEqual(recorder.values, [0, 2, 3, 4])
    }

    // The missed value still waits for a request after receive(_:) returned demand: the request delivers it.
    func testAMissedValueIsDeliveredByTheNextRequestAfterReceiveReturnedDemand() {
        let (subject, recorder) = subscriberMissingOne(returning: .max(1))
        XCTAssertEqual(recorder.values, [0])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [0, 1])
        subject.send(2)
        subject.send(3)
        XCTAssertEqual(recorder.values, [0, 1, 2], "demand 1 + 1, minus the missed value")
        subject.send(completion: .finished)
        XCTAssertEqual(recorder.completion, .finished)
    }

    /// A subject at 0 and a subscriber that asked for one value: receiving 0, it sends 1 (which it has no demand for)
    /// and returns `demand`.
    private func subscriberMissingOne(
        returning demand: Subscribers.Demand
    ) -> (CurrentValueSubject<Int, Never>, Recorder<Int, Never>) {
        let subject = CurrentValueSubject<Int, Never>(0)
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { _, value in
                guard value == 0 else { return .none }
                subject.send(1)
                return demand
            })
        subject.subscribe(recorder)
        return (subject, recorder)
    }

    // Combine delivers the current value inside the request made from receive(subscription:), before it returns.
    func testCurrentValueIsDeliveredInsideTheRequestMadeFromReceiveSubscription() {
        let subject = CurrentValueSubject<String, Never>("a")
        let log = LockedBox<[String]>([])
        let recorder = Recorder<String, Never>(
            initialDemand: nil,
            onValue: { _, value in
                log.withLock { $0.append("value \(value)") }
                return .none
            },
            onSubscription: { _, subscription in
                log.withLock { $0.append("before request") }
                subscription.request(.max(1))
                log.withLock { $0.append("after request") }
            })
        subject.subscribe(recorder)
        XCTAssertEqual(log.withLock { $0 }, ["before request", "value a", "after request"])
    }

    func testCompletionDropsTheUndemandedValueAndKeepsValueReadable() {
        let subject = CurrentValueSubject<Int, TestError>(1)
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        subject.subscribe(recorder)
        subject.send(completion: .failure(TestError(3)))
        subject.send(9)
        XCTAssertEqual(recorder.events, [.subscription("CurrentValueSubject"), .completion(.failure(TestError(3)))])
        XCTAssertEqual(subject.value, 1, "value keeps the last value; send after completion is ignored")
        let late = Recorder<Int, TestError>()
        subject.subscribe(late)
        XCTAssertEqual(late.events, [.subscription("Empty"), .completion(.failure(TestError(3)))])
    }

    func testDemandedValuesAreDeliveredBeforeTheFinish() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        subject.subscribe(recorder)
        subject.send(1)
        subject.send(completion: .finished)
        XCTAssertEqual(
            recorder.events, [.subscription("CurrentValueSubject"), .value(0), .value(1), .completion(.finished)])
    }

    func testCancelReleasesTheSubscriber() {
        let subject = CurrentValueSubject<Int, Never>(0)
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.subscribe(recorder)
            subscription = recorder.subscription
        }
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
        subject.send(1)
    }

    /// Regression: a subscription keeps its subject's state (to leave the subscriber list on cancel); once the
    /// subject is gone, that state must not keep the subject's last value alive for as long as the subscription.
    func testTheLastValueIsReleasedWithTheSubjectEvenIfASubscriptionOutlivesIt() {
        final class Marker {}
        weak var weakMarker: Marker?
        let kept = LockedBox<Subscription?>(nil)
        let received = LockedBox(0)
        do {
            let marker = Marker()
            weakMarker = marker
            CurrentValueSubject<Marker, Never>(marker).subscribe(
                AnySubscriber<Marker, Never>(
                    receiveSubscription: { subscription in
                        kept.withLock { $0 = subscription }
                        subscription.request(.unlimited)
                    },
                    receiveValue: { _ in
                        received.withLock { $0 += 1 }
                        return .none
                    },
                    receiveCompletion: { _ in }))
        }
        XCTAssertEqual(received.withLock { $0 }, 1, "the current value was delivered")
        XCTAssertNotNil(kept.withLock { $0 }, "the subscription outlives the subject")
        XCTAssertNil(weakMarker, "the subject's last value outlived the subject")
        kept.withLock { $0 }?.cancel()
    }

    /// Regression (Apple's behaviour, issue 29): the subject keeps every subscription it is handed (asking each for
    /// `.unlimited` at once), through its completion, and also one handed over after it, until the subject goes away
    /// and cancels each.
    func testUpstreamSubscriptionsAreKeptAliveAfterTheCompletionUntilTheSubjectGoes() {
        assertAsksAtOnceAndKeepsUpstreamsUntilItGoes { CurrentValueSubject<Int, Never>(0) }
    }
}

final class CurrentValueSubjectConcurrencyTests: XCTestCase {
    func testConcurrentSendsKeepTheValueConsistentAndDeliverySerialized() {
        let subject = CurrentValueSubject<Int, Never>(-1)
        let inside = LockedBox(0)
        let overlaps = LockedBox(0)
        let count = LockedBox(0)
        let cancellable = subject.sink { _ in
            if inside.withLock({
                $0 += 1; return $0
            }) > 1 {
                overlaps.withLock { $0 += 1 }
            }
            count.withLock { $0 += 1 }
            inside.withLock { $0 -= 1 }
        }
        runConcurrently(threads: 8) { thread in
            for i in 0..<2_000 { subject.send(thread * 10_000 + i) }
        }
        XCTAssertEqual(overlaps.withLock { $0 }, 0)
        XCTAssertEqual(count.withLock { $0 }, 1 + 8 * 2_000, "unlimited demand: every value is delivered")
        cancellable.cancel()
    }

    func testRequestsRacingSendsNeverExceedDemand() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        subject.subscribe(recorder)
        runConcurrently(threads: 4) { thread in
            for i in 0..<1_000 {
                if thread == 0 { recorder.request(.max(1)) } else { subject.send(i) }
            }
        }
        XCTAssertLessThanOrEqual(recorder.values.count, 1_000, "never more values than requested")
        XCTAssertGreaterThan(recorder.values.count, 0)
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension CurrentValueSubjectTests {
    // cx-org/CombineX d59df7b: CurrentValueSubject resent values after its completion, sent values before they
    // were requested, and did not give a late subscriber the completion.
    func testNothingAfterTheCompletionAndALateSubscriberGetsOnlyTheCompletion() {
        let subject = CurrentValueSubject<Int, TestError>(0)
        let waiting = Recorder<Int, TestError>(initialDemand: nil)
        let eager = Recorder<Int, TestError>()
        subject.subscribe(waiting)
        subject.subscribe(eager)
        subject.send(1)
        subject.send(completion: .failure(TestError(3)))
        subject.send(2)
        subject.send(completion: .finished)
        let late = Recorder<Int, TestError>()
        subject.subscribe(late)
        XCTAssertEqual(
            waiting.events, [.subscription("CurrentValueSubject"), .completion(.failure(TestError(3)))],
            "the completion needs no demand; no value came before a request")
        XCTAssertEqual(
            eager.events,
            [.subscription("CurrentValueSubject"), .value(0), .value(1), .completion(.failure(TestError(3)))])
        XCTAssertEqual(late.events, [.subscription("Empty"), .completion(.failure(TestError(3)))])
    }
}
