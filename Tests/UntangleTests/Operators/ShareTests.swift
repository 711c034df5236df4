import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// An upstream that counts how many times it was subscribed, records every request and cancel of every
/// subscription, and lets the test send to every current subscriber.
final class CountingPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    typealias UpstreamEvent = ManualPublisher<Output, Failure>.UpstreamEvent

    private struct State {
        var subscriptions = 0
        var history: [UpstreamEvent] = []
        var downstreams: [Int: AnySubscriber<Output, Failure>] = [:]
    }

    private let state = LockedBox(State())

    var subscriptions: Int { state.withLock { $0.subscriptions } }
    var history: [UpstreamEvent] { state.withLock { $0.history } }
    var cancels: Int { history.filter { $0 == .cancel }.count }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let id = state.withLock { state -> Int in
            state.subscriptions += 1
            state.downstreams[state.subscriptions] = AnySubscriber(subscriber)
            return state.subscriptions
        }
        subscriber.receive(subscription: Conduit(owner: self, id: id))
    }

    func send(_ value: Output) {
        for downstream in state.withLock({ Array($0.downstreams.values) }) {
            _ = downstream.receive(value)
        }
    }

    func send(completion: Subscribers.Completion<Failure>) {
        let downstreams = state.withLock { state -> [AnySubscriber<Output, Failure>] in
            defer { state.downstreams = [:] }
            return Array(state.downstreams.values)
        }
        for downstream in downstreams {
            downstream.receive(completion: completion)
        }
    }

    fileprivate func record(_ event: UpstreamEvent, id: Int) {
        state.withLock { state in
            state.history.append(event)
            if event == .cancel { state.downstreams[id] = nil }
        }
    }

    private final class Conduit: Subscription, CustomStringConvertible {
        let owner: CountingPublisher
        let id: Int
        init(owner: CountingPublisher, id: Int) {
            self.owner = owner
            self.id = id
        }
        func request(_ demand: Subscribers.Demand) { owner.record(.request(demand), id: id) }
        func cancel() { owner.record(.cancel, id: id) }
        var description: String { "Counting" }
    }
}

/// A subject that only keeps the subscriber it was given, for driving it by hand.
private final class LeakingSubject: Subject, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    var subscriber: AnySubscriber<Int, Never>?
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        self.subscriber = AnySubscriber(subscriber)
    }
    func send(_ value: Int) {}
    func send(completion: Subscribers.Completion<Never>) {}
    func send(subscription: Subscription) {}
}

final class MulticastTests: XCTestCase {
    func testSubscribersShareOneUpstreamSubscriptionMadeOnConnect() {
        let upstream = CountingPublisher<Int, TestError>()
        let multicast = upstream.multicast { PassthroughSubject<Int, TestError>() }
        let a = Recorder<Int, TestError>()
        let b = Recorder<Int, TestError>()
        multicast.subscribe(a)
        multicast.subscribe(b)
        XCTAssertEqual(upstream.subscriptions, 0, "nothing before connect()")
        let connection = multicast.connect()
        XCTAssertEqual(upstream.subscriptions, 1)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        upstream.send(1)
        connection.cancel()
        connection.cancel()
        upstream.send(2)
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(a.values, [1])
        XCTAssertEqual(b.values, [1])
    }

    // As in Combine, every connect() subscribes the subject to the upstream once more.
    func testEveryConnectSubscribesTheSubjectAgain() {
        let upstream = CountingPublisher<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let recorder = Recorder<Int, Never>()
        multicast.subscribe(recorder)
        let first = multicast.connect()
        let second = multicast.connect()
        XCTAssertTrue(first is AnyCancellable)
        XCTAssertEqual(upstream.subscriptions, 2)
        upstream.send(1)
        XCTAssertEqual(recorder.values, [1, 1], "each connection relays the value")
        first.cancel()
        upstream.send(2)
        XCTAssertEqual(recorder.values, [1, 1, 2])
        second.cancel()
        XCTAssertEqual(upstream.cancels, 2)
    }

    func testSubscribersReceiveAMulticastSubscriptionThatRelaysToTheSubject() {
        let subject = PassthroughSubject<Int, Never>()
        let multicast = ManualPublisher<Int, Never>().multicast(subject: subject)
        let recorder = Recorder<Int, Never>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        multicast.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Multicast")])
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(recorder.values, [1, 2], "the demand returned from receive(_:) reaches the subject")
        recorder.cancel()
        subject.send(3)
        XCTAssertEqual(recorder.values, [1, 2])
    }

    // Regression: a subject that hands the multicast's subscriber a second subscription gets it cancelled, and
    // signals before the first subscription are ignored.
    func testTheMulticastSubscriberIgnoresSignalsOutsideItsSubscription() {
        let subject = LeakingSubject()
        let recorder = Recorder<Int, Never>()
        Just(0).multicast(subject: subject).subscribe(recorder)
        let inner = subject.subscriber!
        XCTAssertEqual(inner.receive(1), .none)
        inner.receive(completion: .finished)
        XCTAssertEqual(recorder.events, [], "nothing before the subscription")
        let first = ManualPublisher<Int, Never>()
        first.subscribe(inner)
        let second = ManualPublisher<Int, Never>()
        second.subscribe(inner)
        XCTAssertEqual(second.history, [.cancel])
        XCTAssertEqual(first.history, [.request(.unlimited)])
        XCTAssertEqual(recorder.events, [.subscription("Multicast")])
        subject.subscriber = nil
    }

    func testSubjectIsCreatedLazilyAndOnce() {
        let created = LockedBox(0)
        let multicast = Just(1).multicast { () -> PassthroughSubject<Int, Never> in
            created.withLock { $0 += 1 }
            return PassthroughSubject()
        }
        XCTAssertEqual(created.withLock { $0 }, 0)
        let recorder = Recorder<Int, Never>()
        multicast.subscribe(recorder)
        multicast.subscribe(Recorder<Int, Never>())
        _ = multicast.connect()
        XCTAssertEqual(created.withLock { $0 }, 1)
        XCTAssertEqual(recorder.events, [.subscription("Multicast"), .value(1), .completion(.finished)])
    }

    func testMulticastSubjectRepublishesToEverySubscriber() {
        let relay = PassthroughSubject<Int, Never>()
        let multicast = [1, 2, 3].publisher.multicast(subject: relay)
        let recorder = Recorder<Int, Never>()
        multicast.subscribe(recorder)
        let other = Recorder<Int, Never>()
        relay.subscribe(other)
        _ = multicast.connect()
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(other.values, [1, 2, 3])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testSubscriberWithoutDemandMissesValuesLikeAPassthroughSubject() {
        let upstream = CountingPublisher<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        multicast.subscribe(recorder)
        let connection = multicast.connect()
        upstream.send(1)
        recorder.request(.max(1))
        upstream.send(2)
        upstream.send(3)
        XCTAssertEqual(recorder.values, [2])
        connection.cancel()
    }
}

final class MakeConnectableTests: XCTestCase {
    func testNothingIsPublishedUntilConnectThenEverySubscriberSeesEverything() {
        let connectable = [1, 2, 3].publisher.makeConnectable()
        let a = Recorder<Int, Never>()
        let b = Recorder<Int, Never>()
        connectable.subscribe(a)
        connectable.subscribe(b)
        XCTAssertEqual(a.values, [])
        let connection = connectable.connect()
        for recorder in [a, b] {
            XCTAssertEqual(recorder.values, [1, 2, 3])
            XCTAssertEqual(recorder.completions, [.finished])
        }
        connection.cancel()
    }

    func testCopiesShareOneSubject() {
        let upstream = CountingPublisher<Int, Never>()
        let connectable = Publishers.MakeConnectable(upstream: upstream)
        let copy = connectable
        let recorder = Recorder<Int, Never>()
        copy.subscribe(recorder)
        let connection = connectable.connect()
        XCTAssertEqual(upstream.subscriptions, 1)
        upstream.send(1)
        XCTAssertEqual(recorder.events, [.subscription("Multicast"), .value(1)])
        connection.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}

final class AutoconnectTests: XCTestCase {
    func testFirstSubscriberConnectsAndTheLastToCancelDisconnects() {
        let upstream = CountingPublisher<Int, Never>()
        let automatic = upstream.makeConnectable().autoconnect()
        let a = Recorder<Int, Never>()
        let b = Recorder<Int, Never>()
        automatic.subscribe(a)
        XCTAssertEqual(upstream.subscriptions, 1)
        automatic.subscribe(b)
        XCTAssertEqual(upstream.subscriptions, 1)
        upstream.send(1)
        a.cancel()
        a.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "b is still attached")
        upstream.send(2)
        b.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(a.events, [.subscription("Multicast"), .value(1)])
        XCTAssertEqual(b.events, [.subscription("Multicast"), .value(1), .value(2)])

        let c = Recorder<Int, Never>()
        automatic.subscribe(c)
        XCTAssertEqual(upstream.subscriptions, 2, "a later subscriber connects again")
        c.cancel()
        XCTAssertEqual(upstream.cancels, 2)
    }

    // As in Combine, a completion does not count as leaving: a later subscriber attaches to the finished
    // connection and receives the completion; nothing is subscribed again.
    func testSynchronousUpstreamReachesTheFirstSubscriberAndCompletionDoesNotDisconnect() {
        let upstream = CountingPublisher<Int, Never>()
        let automatic = upstream.makeConnectable().autoconnect()
        let recorder = Recorder<Int, Never>()
        automatic.subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Multicast"), .value(1), .completion(.finished)])
        let late = Recorder<Int, Never>()
        automatic.subscribe(late)
        XCTAssertEqual(late.events, [.subscription("Multicast"), .completion(.finished)])
        XCTAssertEqual(upstream.subscriptions, 1)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        recorder.cancel()
        late.cancel()
        let again = Recorder<Int, Never>()
        automatic.subscribe(again)
        XCTAssertEqual(upstream.subscriptions, 2, "the last cancel disconnected: the next subscriber connects")
        again.cancel()
    }

    // The subscriber receives the upstream's subscription wrapped: it describes itself and identifies itself as
    // the upstream's, and every cancel is passed on, but only the first counts as leaving.
    func testTheSubscriptionIsTheUpstreamsWithItsCancelCountedOnce() {
        let subject = PassthroughSubject<Int, Never>()
        let automatic = subject.makeConnectable().autoconnect()
        let a = Recorder<Int, Never>()
        let b = Recorder<Int, Never>()
        automatic.subscribe(a)
        automatic.subscribe(b)
        XCTAssertEqual(a.events, [.subscription("Multicast")])
        a.cancel()
        a.cancel()
        subject.send(1)
        XCTAssertEqual(b.values, [1], "b still connected: a's second cancel did not count")
        b.cancel()
        subject.send(2)
        XCTAssertEqual(b.values, [1])
    }

    func testDemandPassesThroughAndNothingArrivesAfterCancel() {
        let subject = PassthroughSubject<Int, Never>()
        let automatic = subject.makeConnectable().autoconnect()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        automatic.subscribe(recorder)
        subject.send(1)
        subject.send(2)
        recorder.request(.max(1))
        subject.send(3)
        recorder.cancel()
        subject.send(4)
        subject.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Multicast"), .value(1), .value(3)])
    }
}

final class ShareTests: XCTestCase {
    func testSharesOneUpstreamSubscriptionAndDisconnectsAfterTheLastCancel() {
        let upstream = CountingPublisher<Int, TestError>()
        let shared = upstream.share()
        let a = Recorder<Int, TestError>()
        let b = Recorder<Int, TestError>()
        shared.subscribe(a)
        shared.subscribe(b)
        upstream.send(1)
        XCTAssertEqual(upstream.subscriptions, 1)
        a.cancel()
        upstream.send(2)
        b.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(a.events, [.subscription("Multicast"), .value(1)])
        XCTAssertEqual(b.events, [.subscription("Multicast"), .value(1), .value(2)])
    }

    func testFailureReachesEverySubscriberAndLaterOnesGetItAtOnce() {
        let upstream = CountingPublisher<Int, TestError>()
        let shared = upstream.share()
        let a = Recorder<Int, TestError>()
        shared.subscribe(a)
        upstream.send(completion: .failure(TestError(6)))
        let late = Recorder<Int, TestError>()
        shared.subscribe(late)
        XCTAssertEqual(a.events, [.subscription("Multicast"), .completion(.failure(TestError(6)))])
        XCTAssertEqual(late.events, [.subscription("Multicast"), .completion(.failure(TestError(6)))])
        XCTAssertEqual(upstream.subscriptions, 1, "as in Combine, the finished connection is not made again")
    }

    func testEquatableByIdentity() {
        let upstream = Just(1)
        let shared = upstream.share()
        XCTAssertEqual(shared, shared)
        XCTAssertNotEqual(shared, upstream.share())
    }

    /// Regression guard: a `share()` used inline (nothing else references it) must stay connected while it has
    /// subscribers.
    func testAnInlineShareStaysConnectedWhileSubscribed() {
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox<[Int]>([])
        let cancellable = subject.share().sink { value in received.withLock { $0.append(value) } }
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(received.withLock { $0 }, [1, 2])
        cancellable.cancel()
        subject.send(3)
        XCTAssertEqual(received.withLock { $0 }, [1, 2])
    }

    func testReleasesTheSubscriberAndTheShareAfterCancel() {
        weak var weakRecorder: Recorder<Int, Never>?
        weak var weakShare: Publishers.Share<PassthroughSubject<Int, Never>>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let shared = subject.share()
            weakShare = shared
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            shared.subscribe(recorder)
            subject.send(1)
            recorder.cancel()
        }
        XCTAssertNil(weakRecorder)
        XCTAssertNil(weakShare)
    }

    func testReleasesTheSubscriberAfterCompletion() {
        weak var weakRecorder: Recorder<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            shared.subscribe(recorder)
            subject.send(completion: .finished)
        }
        XCTAssertNil(weakRecorder)
    }
}

final class ShareConcurrencyTests: XCTestCase {
    private func assertEightConcurrentFirstSubscribersConnectOnce<P: Publisher>(
        _ make: (CountingPublisher<Int, Never>) -> P, file: StaticString = #filePath, line: UInt = #line
    ) where P.Output == Int, P.Failure == Never, P: Sendable {
        for _ in 0..<50 {
            let upstream = CountingPublisher<Int, Never>()
            let shared = make(upstream)
            let recorders = (0..<8).map { _ in Recorder<Int, Never>() }
            runConcurrently(threads: 8) { thread in shared.subscribe(recorders[thread]) }
            XCTAssertEqual(upstream.subscriptions, 1, "connected exactly once", file: file, line: line)
            upstream.send(7)
            for recorder in recorders {
                XCTAssertEqual(recorder.values, [7], file: file, line: line)
            }
            runConcurrently(threads: 8) { thread in recorders[thread].cancel() }
            XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel], "torn down once", file: file, line: line)
        }
    }

    // ReactiveX/RxSwift 5960b8dd (issue 2718): concurrent first subscribers to a shared publisher each connected it.
    func testEightConcurrentFirstSubscribersToShareConnectUpstreamExactlyOnce() {
        assertEightConcurrentFirstSubscribersConnectOnce { $0.share() }
    }

    func testEightConcurrentFirstSubscribersToAutoconnectConnectExactlyOnce() {
        assertEightConcurrentFirstSubscribersConnectOnce { $0.makeConnectable().autoconnect() }
    }

    func testConcurrentConnectsShareOneSubjectAndEachIsCancelledOnce() {
        for _ in 0..<50 {
            let upstream = CountingPublisher<Int, Never>()
            let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
            let recorder = Recorder<Int, Never>()
            multicast.subscribe(recorder)
            let connections = LockedBox<[AnyCancellable]>([])
            runConcurrently(threads: 8) { _ in
                let connection = multicast.connect()
                connections.withLock { $0.append(AnyCancellable(connection)) }
            }
            XCTAssertEqual(upstream.subscriptions, 8)
            upstream.send(1)
            XCTAssertEqual(recorder.values, Array(repeating: 1, count: 8), "one subject behind every connection")
            runConcurrently(threads: 8) { thread in connections.withLock { $0[thread] }.cancel() }
            XCTAssertEqual(upstream.cancels, 8)
        }
    }

    /// Subscribers attach and cancel on eight threads at once: however the reference count races, every upstream
    /// subscription the share makes is cancelled once the last subscriber has left (no connection is leaked, none
    /// is cancelled twice).
    func testRacingSubscribeAndCancelNeverLeaksAConnection() {
        let upstream = CountingPublisher<Int, Never>()
        let shared = upstream.share()
        let detector = OverlapDetector()
        runConcurrently(threads: 8) { thread in
            for i in 0..<300 {
                let cancellable = shared.sink { _ in detector.around {} }
                if thread == 0 { upstream.send(i) }
                cancellable.cancel()
            }
        }
        XCTAssertGreaterThanOrEqual(upstream.subscriptions, 1)
        XCTAssertEqual(upstream.cancels, upstream.subscriptions)
        XCTAssertEqual(upstream.history.filter { $0 == .request(.unlimited) }.count, upstream.subscriptions)
    }

    func testEachSubscriberIsSerializedWhileUpstreamSendsFromSeveralThreads() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        let detectors = (0..<3).map { _ in OverlapDetector() }
        let counts = LockedBox([0, 0, 0])
        let cancellables = (0..<3).map { index in
            shared.sink { _ in
                detectors[index].around { counts.withLock { $0[index] += 1 } }
            }
        }
        runConcurrently(threads: 4) { _ in
            for i in 0..<1_000 { subject.send(i) }
        }
        for index in 0..<3 {
            XCTAssertEqual(detectors[index].overlaps, 0)
        }
        XCTAssertEqual(counts.withLock { $0 }, [4_000, 4_000, 4_000])
        cancellables.forEach { $0.cancel() }
    }

    /// Lock inversion: the shared subscriber takes a user lock; another thread holds that lock while it subscribes
    /// to and cancels from the same share. No library lock is held across either callout, so nothing deadlocks.
    func testSubscribingWhileHoldingALockTheSubscriberTakesDoesNotDeadlock() {
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.share()
        let userLock = NSRecursiveLock()
        let received = LockedBox(0)
        let cancellable = shared.sink { _ in
            userLock.lock()
            received.withLock { $0 += 1 }
            userLock.unlock()
        }
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    subject.send(i)
                } else {
                    userLock.lock()
                    let other = shared.sink { _ in
                        userLock.lock()
                        userLock.unlock()
                    }
                    other.cancel()
                    userLock.unlock()
                }
            }
        }
        XCTAssertEqual(received.withLock { $0 }, 2_000)
        cancellable.cancel()
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension MulticastTests {
    // OpenCombine/OpenCombine 8cf71e0: the subject's subscriber in a connection accepted a second subscription
    // instead of cancelling it.
    func testTheConnectionCancelsASecondUpstreamSubscription() throws {
        let upstream = CapturingPublisher<Int, Never>()
        let multicast = upstream.multicast(subject: PassthroughSubject<Int, Never>())
        let recorder = Recorder<Int, Never>()
        multicast.subscribe(recorder)
        let connection = multicast.connect()
        let first = LoggingSubscription()
        let second = LoggingSubscription()
        let subscriber = try XCTUnwrap(upstream.erasedSubscriber)
        subscriber.receive(subscription: first)
        subscriber.receive(subscription: second)
        XCTAssertEqual(second.log, ["cancel"])
        XCTAssertEqual(subscriber.receive(1), .none)
        connection.cancel()
        XCTAssertEqual(first.log, ["request(unlimited)", "cancel"])
        XCTAssertEqual(recorder.events, [.subscription("Multicast"), .value(1)])
    }

    // OpenCombine/OpenCombine cb99f8b (issue 186): a connection kept its subject alive, and cancelling it after the
    // subject went away took a lock twice.
    func testCancellingAConnectionAfterItsSubjectWentAwayIsHarmless() {
        let upstream = ManualPublisher<Int, Never>()
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let connection: Cancellable
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            connection = upstream.multicast(subject: subject).connect()
        }
        XCTAssertNil(weakSubject, "the connection does not keep the subject")
        XCTAssertEqual(upstream.history, [.cancel], "no subscriber asked; the subject's end cancelled the upstream")
        connection.cancel()
        XCTAssertEqual(upstream.history, [.cancel], "cancel() after the subject went away does nothing more")
    }
}

extension AutoconnectTests {
    // cx-org/CombineX 0109631 and 328c88e: autoconnect kept its connection (and the values flowing) after the only
    // subscriber cancelled.
    func testTheLastSubscribersCancelEndsTheConnection() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        subject.makeConnectable().autoconnect().subscribe(recorder)
        subject.send(1)
        recorder.cancel()
        subject.send(2)
        XCTAssertEqual(recorder.events, [.subscription("Multicast"), .value(1)])
        let probe = Recorder<Int, Never>()
        subject.subscribe(probe)
        subject.send(3)
        XCTAssertEqual(probe.values, [3], "the subject has no other subscriber left to fail it")
    }
}
