import Foundation
import Untangle
import UntangleSync
import XCTest

final class PassthroughSubjectTests: XCTestCase {
    func testDeliversToSubscribersWithDemandThenFinishes() {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .unlimited)
        subject.subscribe(recorder)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        subject.send(3)
        XCTAssertEqual(
            recorder.events,
            [.subscription("PassthroughSubject"), .value(1), .value(2), .completion(.finished)])
    }

    func testValuesSentWithoutDemandAreDroppedAsInCombine() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        subject.subscribe(recorder)
        subject.send(1)
        recorder.request(.max(2))
        subject.send(2)
        subject.send(3)
        subject.send(4)
        XCTAssertEqual(recorder.events, [.subscription("PassthroughSubject"), .value(2), .value(3)])
    }

    func testDemandReturnedFromReceiveIsAdded() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, value in value < 3 ? .max(1) : .none }
        subject.subscribe(recorder)
        for value in 1...5 { subject.send(value) }
        XCTAssertEqual(recorder.values, [1, 2, 3])
    }

    func testFailureIsDeliveredWithoutDemand() {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        subject.subscribe(recorder)
        subject.send(completion: .failure(TestError(7)))
        XCTAssertEqual(recorder.events, [.subscription("PassthroughSubject"), .completion(.failure(TestError(7)))])
    }

    func testLateSubscriberReceivesTheCompletionAtOnce() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(TestError(2)))
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        subject.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.failure(TestError(2)))])
    }

    func testOnlyTheFirstCompletionCounts() {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        subject.subscribe(recorder)
        subject.send(completion: .finished)
        subject.send(completion: .failure(TestError()))
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testCancelStopsDeliveryAndIsIdempotent() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        subject.subscribe(recorder)
        subject.send(1)
        recorder.cancel()
        recorder.cancel()
        subject.send(2)
        subject.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("PassthroughSubject"), .value(1)])
    }

    func testCancelFromInsideReceiveStopsFurtherValues() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never> { recorder, _ in
            recorder.cancel()
            return .none
        }
        subject.subscribe(recorder)
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(recorder.values, [1])
    }

    func testEverySubscriberGetsItsOwnDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let eager = Recorder<Int, Never>(initialDemand: .unlimited)
        let lazy = Recorder<Int, Never>(initialDemand: .max(1))
        subject.subscribe(eager)
        subject.subscribe(lazy)
        subject.send(1)
        subject.send(2)
        XCTAssertEqual(eager.values, [1, 2])
        XCTAssertEqual(lazy.values, [1])
    }

    // Combine delivers a value sent from inside receive(_:) on the same thread at once (depth-first), before the
    // outer send returns.
    func testReentrantSendOnTheSameThreadIsDeliveredNestedAsInCombine() {
        let subject = PassthroughSubject<Int, Never>()
        let log = LockedBox<[String]>([])
        let recorder = Recorder<Int, Never> { _, value in
            log.withLock { $0.append("enter \(value)") }
            if value == 1 { subject.send(2) }
            log.withLock { $0.append("exit \(value)") }
            return .none
        }
        subject.subscribe(recorder)
        subject.send(1)
        XCTAssertEqual(log.withLock { $0 }, ["enter 1", "enter 2", "exit 2", "exit 1"])
    }

    // Combine delivers the first value inside the request made from receive(subscription:).
    func testSendFromInsideReceiveSubscriptionAfterRequestIsDelivered() {
        let subject = PassthroughSubject<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in .none }
        let outer = Recorder<Int, Never>(
            initialDemand: nil,
            onSubscription: { _, subscription in
                subscription.request(.max(1))
                subject.send(10)
            })
        subject.subscribe(recorder)
        subject.subscribe(outer)
        XCTAssertEqual(outer.events, [.subscription("PassthroughSubject"), .value(10)])
        XCTAssertEqual(recorder.values, [], "the first subscriber never asked")
    }

    func testSubjectSendSubscriptionRequestsUnlimitedUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        subject.subscribe(recorder)
        let connection = upstream.subscribe(subject)
        upstream.send(5)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(recorder.values, [5])
        connection.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    private final class RecordingSubscription: Subscription {
        var history: [String] = []
        func request(_ demand: Subscribers.Demand) { history.append("request(\(demand))") }
        func cancel() { history.append("cancel") }
    }

    // As in Combine: subscriptions sent to a subject without demanding subscribers wait, unrequested, and a subject
    // that goes away cancels them.
    func testUpstreamSubscriptionsWaitForDemandAndAreCancelledWhenTheSubjectGoes() {
        let upstream = RecordingSubscription()
        do {
            let subject = PassthroughSubject<Int, Never>()
            subject.send(subscription: upstream)
            subject.send(subscription: upstream)
            XCTAssertEqual(upstream.history, [])
        }
        XCTAssertEqual(upstream.history, ["cancel", "cancel"])
    }

    func testSubscriptionDescribesAndMirrorsItselfAsInCombine() throws {
        let subject = PassthroughSubject<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(3))
        subject.subscribe(recorder)
        subject.send(1)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual(String(describing: subscription), "PassthroughSubject")
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String,
            "PassthroughSubject")
        func children() -> [String] {
            let mirror = (subscription as? CustomReflectable)?.customMirror
            return mirror?.children.map { "\($0.label ?? ""): \($0.value)" } ?? []
        }
        let attached = children()
        XCTAssertEqual(attached.map { $0.prefix(while: { $0 != ":" }) }, ["parent", "downstream", "demand", "subject"])
        XCTAssertTrue(attached[0].contains("PassthroughSubject<Int, TestError>"))
        XCTAssertTrue(attached[1].contains("Recorder"))
        XCTAssertEqual(attached[2], "demand: max(2)")
        subscription.cancel()
        XCTAssertEqual(children(), ["parent: nil", "downstream: nil", "demand: max(2)", "subject: nil"])
    }

    func testSubscriptionReleasesTheSubscriberAfterCancel() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.subscribe(recorder)
            subscription = recorder.subscription
        }
        XCTAssertNotNil(weakRecorder)
        subscription?.cancel()
        XCTAssertNil(weakRecorder, "cancel must drop every reference to the subscriber")
        _ = subscription
    }

    func testSubscriptionReleasesTheSubscriberAfterCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            subject.subscribe(recorder)
            subscription = recorder.subscription
        }
        subject.send(completion: .finished)
        XCTAssertNil(weakRecorder, "completion must drop every reference to the subscriber")
        _ = subscription
    }

    func testSubscriptionDoesNotKeepTheSubjectAlive() {
        weak var weakSubject: PassthroughSubject<Int, Never>?
        let recorder = Recorder<Int, Never>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            weakSubject = subject
            subject.subscribe(recorder)
        }
        XCTAssertNil(weakSubject)
        recorder.cancel()
    }

    /// Regression: a subscription holds its subject's subscriber list strongly (the list holds it back); the
    /// subject's deinit must break that cycle, or a subscription whose subscriber does not keep it (nothing else
    /// would ever cancel it) would leak with its subscriber once the subject is gone.
    func testDroppingTheSubjectFreesASubscriptionNobodyElseHolds() {
        final class Marker {}
        weak var weakMarker: Marker?
        let values = LockedBox<[Int]>([])
        do {
            let subject = PassthroughSubject<Int, Never>()
            let marker = Marker()
            weakMarker = marker
            subject.subscribe(
                AnySubscriber<Int, Never>(
                    receiveSubscription: { $0.request(.unlimited) },
                    receiveValue: { value in
                        withExtendedLifetime(marker) { values.withLock { $0.append(value) } }
                        return .none
                    },
                    receiveCompletion: { _ in }))
            subject.send(1)
            XCTAssertNotNil(weakMarker, "the subject keeps its subscriber while it lives")
        }
        XCTAssertEqual(values.withLock { $0 }, [1])
        XCTAssertNil(weakMarker, "the subscription and its subscriber leaked after the subject was gone")
    }

    // A `Sink` takes its subscription from a subject without a subscription callout (SubjectCore.subscribeSink);
    // these pin down that nothing observable differs from the callout.

    func testASinkOnACompletedSubjectReceivesOnlyTheCompletion() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(TestError(3)))
        var values: [Int] = []
        var completions: [Subscribers.Completion<TestError>] = []
        let cancellable = subject.sink(
            receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        subject.send(1)
        XCTAssertEqual(values, [])
        XCTAssertEqual(completions, [.failure(TestError(3))])
        cancellable.cancel()
    }

    func testASinkReceivesValuesThenTheCompletionAndIsReleased() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSink: Subscribers.Sink<Int, Never>?
        var events: [String] = []
        do {
            let sink = Subscribers.Sink<Int, Never>(
                receiveCompletion: { _ in events.append("finished") }, receiveValue: { events.append("\($0)") })
            weakSink = sink
            subject.subscribe(sink)
        }
        subject.send(1)
        subject.send(2)
        XCTAssertNotNil(weakSink, "the subject holds its subscriber until it completes")
        subject.send(completion: .finished)
        subject.send(3)
        XCTAssertEqual(events, ["1", "2", "finished"])
        XCTAssertNil(weakSink, "completion must release the sink")
    }

    func testASinkAlreadySubscribedIgnoresASecondSubject() {
        let first = PassthroughSubject<Int, Never>()
        let second = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
        first.subscribe(sink)
        second.subscribe(sink)
        first.send(1)
        second.send(2)
        first.send(3)
        XCTAssertEqual(values, [1, 3])
        sink.cancel()
        first.send(4)
        XCTAssertEqual(values, [1, 3])
    }

    func testASinkCancelledBeforeSubscribingIsNotKeptBySubject() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSink: Subscribers.Sink<Int, Never>?
        var values: [Int] = []
        do {
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
            weakSink = sink
            sink.cancel()
            subject.subscribe(sink)
        }
        subject.send(1)
        XCTAssertEqual(values, [])
        XCTAssertNil(weakSink, "the subject kept a sink that had been cancelled before it subscribed")
    }

    /// A subject's subscribers share its delivery lock: one subscriber's callout that signals another subscriber of
    /// the same subject (a request, a reentrant send, a cancel) must find the lock free (debug builds stop on a lock
    /// taken twice by one thread).
    func testASubscribersCalloutMaySignalAnotherSubscriberOfTheSameSubject() {
        let subject = PassthroughSubject<Int, Never>()
        let second = Recorder<Int, Never>(initialDemand: nil)
        var log: [Int] = []
        let first = subject.sink { value in
            log.append(value)
            if value == 1 {
                second.subscription?.request(.max(1))
                subject.send(2)
                second.cancel()
            }
        }
        subject.subscribe(second)
        subject.send(1)
        subject.send(3)
        XCTAssertEqual(log, [1, 2, 3])
        XCTAssertEqual(second.events, [.subscription("PassthroughSubject"), .value(2)])
        first.cancel()
    }

    /// Regression: the conduit entries a subject keeps per subscriber type hold its state (the subscriber list)
    /// and the state holds them; the subject's deinit must drop them, or the state of every subject that ever had a
    /// subscriber would leak (counted with `LiveObjects`, debug builds: the state box and the subscriptions).
    func testADroppedSubjectLeavesNothingBehindOnceItsSubscriptionsEnd() {
        let before = LiveObjects.count
        var values: [Int] = []
        do {
            let subject = PassthroughSubject<Int, Never>()
            let sink = subject.sink { values.append($0) }
            let recorder = Recorder<Int, Never>()
            subject.subscribe(recorder)
            subject.send(1)
            XCTAssertEqual(recorder.values, [1])
            recorder.cancel()
            sink.cancel()
        }
        XCTAssertEqual(values, [1])
        XCTAssertEqual(LiveObjects.count, before, "a subject's state or subscriptions outlived it")
    }

    /// Subscribers of one type share the entries the subject made for that type; a subject with more subscriber
    /// types than it keeps entries for (16) still serves every one of them.
    func testSubscribersOfManyTypesAllReceiveAndCancel() {
        final class Wrap<Inner: Subscriber>: Subscriber where Inner.Input == Int, Inner.Failure == Never {
            let inner: Inner
            init(_ inner: Inner) { self.inner = inner }
            func receive(subscription: Subscription) { inner.receive(subscription: subscription) }
            func receive(_ input: Int) -> Subscribers.Demand { inner.receive(input) }
            func receive(completion: Subscribers.Completion<Never>) { inner.receive(completion: completion) }
        }
        let before = LiveObjects.count
        do {
            let subject = PassthroughSubject<Int, Never>()
            var recorders: [Recorder<Int, Never>] = []
            // A new subscriber type per depth: Recorder, Wrap<Recorder>, Wrap<Wrap<Recorder>>, ...
            func subscribe<S: Subscriber>(_ subscriber: S, wrappedTimes depth: Int)
            where S.Input == Int, S.Failure == Never {
                if depth == 0 {
                    subject.subscribe(subscriber)
                } else {
                    subscribe(Wrap(subscriber), wrappedTimes: depth - 1)
                }
            }
            for depth in 0..<20 {
                for _ in 0..<2 {
                    let recorder = Recorder<Int, Never>()
                    recorders.append(recorder)
                    subscribe(recorder, wrappedTimes: depth)
                }
            }
            subject.send(7)
            for (index, recorder) in recorders.enumerated() where index % 2 == 0 {
                recorder.cancel()
            }
            subject.send(8)
            subject.send(completion: .finished)
            for (index, recorder) in recorders.enumerated() {
                XCTAssertEqual(
                    recorder.events,
                    index % 2 == 0
                        ? [.subscription("PassthroughSubject"), .value(7)]
                        : [.subscription("PassthroughSubject"), .value(7), .value(8), .completion(.finished)],
                    "subscriber \(index)")
            }
        }
        // Entries past the 16 the subject keeps belong to their conduits alone; everything goes with the subject.
        XCTAssertEqual(LiveObjects.count, before, "a subject's state or subscriptions outlived it")
    }

    /// A subscription keeps its emitter state inline at an address computed from its layout (checked in debug
    /// builds when it is made); a failure type with a larger alignment and size moves that state, on the sink path
    /// and the ordinary one.
    func testSubscriptionsOfAnOverAlignedFailureTypeDeliverEverything() {
        struct WideError: Error, Equatable {
            var lanes: SIMD4<Float>
            var code: Int
        }
        XCTAssertEqual(MemoryLayout<WideError>.alignment, 16)
        let subject = PassthroughSubject<Int, WideError>()
        var sinkEvents: [String] = []
        let sink = subject.sink(
            receiveCompletion: { sinkEvents.append("\($0)") }, receiveValue: { sinkEvents.append("\($0)") })
        let recorder = Recorder<Int, WideError>()
        subject.subscribe(recorder)
        subject.send(1)
        let failure = WideError(lanes: SIMD4(1, 2, 3, 4), code: 9)
        subject.send(completion: .failure(failure))
        XCTAssertEqual(sinkEvents, ["1", "\(Subscribers.Completion<WideError>.failure(failure))"])
        XCTAssertEqual(
            recorder.events, [.subscription("PassthroughSubject"), .value(1), .completion(.failure(failure))])
        withExtendedLifetime(sink) {}
    }

    /// Cancelling a subscription after its subject is gone has nothing to leave: it releases the subscriber.
    func testCancelAfterTheSubjectIsGoneReleasesTheSubscriber() {
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>()
            weakRecorder = recorder
            PassthroughSubject<Int, Never>().subscribe(recorder)
            subscription = recorder.subscription
        }
        XCTAssertNotNil(weakRecorder, "the subscription (held here) still holds its subscriber")
        subscription?.cancel()
        subscription?.cancel()
        XCTAssertNil(weakRecorder)
    }

    /// Regression (Apple's behaviour, issue 29): the subject keeps every subscription it is handed, through its
    /// completion, and also one handed over after it, until the subject goes away and cancels each.
    func testUpstreamSubscriptionsAreKeptAliveAfterTheCompletionUntilTheSubjectGoes() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        let log = upstreamLifetimes(of: { PassthroughSubject<Int, Never>() }) { $0.subscribe(recorder) }
        XCTAssertEqual(log.handed, [], "kept, not asked: nobody requested anything yet")
        XCTAssertEqual(log.alive, ["first: request(unlimited)", "late: request(unlimited)"])
        XCTAssertEqual(
            log.gone,
            [
                "first: request(unlimited)", "late: request(unlimited)", "first: cancel", "late: cancel",
                "first: released", "late: released",
            ])
        XCTAssertEqual(recorder.events, [.subscription("PassthroughSubject"), .completion(.finished)])
    }
}

final class PassthroughSubjectConcurrencyTests: XCTestCase {
    /// A sink's `cancel()` racing its subscribe must never leave a dead subscription in the subject's list (where it
    /// would live as long as the subject) nor let a value through. Counted with `LiveObjects` (debug builds) while
    /// the subject is still alive. The ordering this guards (the sink path adopts the subscription and publishes it
    /// in one critical section, see `SubjectCore.subscribeSink`) fails only if a thread is preempted in a window of
    /// a few instructions, so this checks the invariant under a real race (and ThreadSanitizer) rather than
    /// reliably catching that one mistake.
    func testSinksCancelledWhileTheySubscribeLeaveNothingInTheSubject() {
        let subject = PassthroughSubject<Int, Never>()
        let delivered = LockedBox(0)
        let rounds = 3_000
        let sinks = (0..<rounds).map { _ in
            Subscribers.Sink<Int, Never>(
                receiveCompletion: { _ in }, receiveValue: { _ in delivered.withLock { $0 += 1 } })
        }
        let before = LiveObjects.count
        runConcurrently(threads: 2) { thread in
            for sink in sinks {
                if thread == 0 {
                    subject.subscribe(sink)
                } else {
                    sink.cancel()
                }
            }
        }
        subject.send(1)
        XCTAssertEqual(delivered.withLock { $0 }, 0, "a cancelled sink received a value")
        XCTAssertEqual(LiveObjects.count, before, "subscriptions of cancelled sinks are still alive in the subject")
        withExtendedLifetime(subject) {}
    }

    /// The sink path publishes a subscription that is already delivering: sinks attached while another thread sends
    /// must each see every value sent after their first one, in order, up to the last.
    func testSinksAttachingWhileAnotherThreadSendsSeeGaplessRuns() {
        let subject = PassthroughSubject<Int, Never>()
        // Sized for ThreadSanitizer on a loaded 2-core machine (20,000 values into 200 sinks took 62 s there, at the
        // edge of the old 60 s watchdog): sinks still attach throughout the sending, and the watchdog is generous.
        let count = 10_000
        let sinks = 100
        let runs = LockedBox<[[Int]]>(Array(repeating: [], count: sinks))
        let cancellables = LockedBox<[AnyCancellable]>([])
        runConcurrently(threads: 2, timeout: 600) { thread in
            if thread == 0 {
                for value in 0..<count { subject.send(value) }
            } else {
                for index in 0..<sinks {
                    let cancellable = subject.sink { value in runs.withLock { $0[index].append(value) } }
                    cancellables.withLock { $0.append(cancellable) }
                }
            }
        }
        subject.send(count)
        for (index, run) in runs.withLock({ $0 }).enumerated() {
            guard let first = run.first else {
                XCTFail("sink \(index) received nothing, not even the value sent after both threads finished")
                continue
            }
            XCTAssertEqual(run, Array(first...count), "sink \(index) missed or reordered values")
        }
        cancellables.withLock { $0.forEach { $0.cancel() } }
    }

    /// Seed regression (the custom-publisher article's "concurrent senders"): 8 threads send into one subject;
    /// every value arrives, each thread's values in order, and the subscriber never sees two calls at once.
    func testConcurrentSendFromEightThreadsIsSerializedAndLosesNothing() {
        let subject = PassthroughSubject<Int, Never>()
        let inside = LockedBox(0)
        let overlaps = LockedBox(0)
        let perThread = LockedBox([[Int]](repeating: [], count: 8))
        let cancellable = subject.sink { value in
            if inside.withLock({
                $0 += 1; return $0
            }) > 1 {
                overlaps.withLock { $0 += 1 }
            }
            perThread.withLock { $0[value / 100_000].append(value % 100_000) }
            inside.withLock { $0 -= 1 }
        }
        let perThreadCount = 5_000
        runConcurrently(threads: 8) { thread in
            for i in 0..<perThreadCount { subject.send(thread * 100_000 + i) }
        }
        XCTAssertEqual(overlaps.withLock { $0 }, 0, "two threads were inside the subscriber at once")
        for thread in 0..<8 {
            XCTAssertEqual(perThread.withLock { $0[thread] }, Array(0..<perThreadCount), "thread \(thread)")
        }
        cancellable.cancel()
    }

    /// Seed regression: two subjects wired into each other, driven from two threads at once. With a lock held
    /// during delivery (or a recursive lock) each thread holds one subject's lock and waits for the other's: a
    /// deadlock. The emitter hands the signal over instead.
    func testCrossWiredSubjectsOnTwoThreadsDoNotDeadlock() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let deliveries = LockedBox(0)
        let intoB = a.sink { hops in
            deliveries.withLock { $0 += 1 }
            if hops > 0 { b.send(hops - 1) }
        }
        let intoA = b.sink { hops in
            deliveries.withLock { $0 += 1 }
            if hops > 0 { a.send(hops - 1) }
        }
        let rounds = 2_000
        runConcurrently(threads: 2, timeout: 120) { thread in
            for _ in 0..<rounds {
                if thread == 0 { a.send(3) } else { b.send(3) }
            }
        }
        // Each chain is 4 deliveries (hops 3, 2, 1, 0), and nothing may be lost: unlimited demand everywhere.
        XCTAssertEqual(deliveries.withLock { $0 }, rounds * 2 * 4)
        intoA.cancel()
        intoB.cancel()
    }

    /// Seed regression: cancel must return promptly even while another thread is blocked inside the subscriber,
    /// and nothing is delivered after it returned (but the delivery in progress).
    func testCancelReturnsPromptlyWhileTheSubscriberIsBlocked() {
        let subject = PassthroughSubject<Int, Never>()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let received = LockedBox<[Int]>([])
        let recorder = Recorder<Int, Never> { _, value in
            received.withLock { $0.append(value) }
            if value == 1 {
                entered.signal()
                _ = release.wait(timeout: .now() + 60)
            }
            return .none
        }
        subject.subscribe(recorder)
        let senderDone = DispatchSemaphore(value: 0)
        Thread {
            subject.send(1)
            subject.send(2)
            senderDone.signal()
        }.start()
        XCTAssertEqual(entered.wait(timeout: .now() + 30), .success)
        withWatchdog("cancel() while the subscriber is blocked", timeout: 30) {
            recorder.cancel()
        }
        subject.send(3)
        release.signal()
        XCTAssertEqual(senderDone.wait(timeout: .now() + 30), .success, "the sender must return")
        XCTAssertEqual(received.withLock { $0 }, [1], "nothing may be delivered after cancel() returned")
    }

    /// Subscribers of several types attaching from several threads at once, while values are sent: the subject makes
    /// one set of entry points per type, under its lock, and every subscriber uses its own type's. Each subscriber
    /// sees its own thread's values in order and none sent after its cancel; it may miss the last ones (a `send` that
    /// finds another thread delivering to that subscriber leaves the value to that thread and returns, and a cancel
    /// made before that thread gets to it discards it), so only a prefix is required, and overall most rounds must
    /// see all three.
    func testSubscribersOfSeveralTypesAttachingConcurrentlyEachGetTheirOwnValues() {
        let subject = PassthroughSubject<Int, Never>()
        let rounds = 300
        let wrong = LockedBox<[[Int]]>([])
        let complete = LockedBox([0, 0, 0])
        let before = LiveObjects.count
        runConcurrently(threads: 4) { thread in
            for round in 0..<rounds {
                let marker = thread * 1_000_000 + round * 10
                let seen = LockedBox<[Int]>([])
                let record: (Int) -> Void = { value in
                    if value / 10 == marker / 10 { seen.withLock { $0.append(value) } }
                }
                // Three subscriber types at the subject: the sink itself, map's subscriber, filter's.
                let cancellable: AnyCancellable
                switch thread % 3 {
                case 0: cancellable = subject.sink(receiveValue: record)
                case 1: cancellable = subject.map { $0 }.sink(receiveValue: record)
                default: cancellable = subject.filter { _ in true }.sink(receiveValue: record)
                }
                for offset in 0..<3 {
                    subject.send(marker + offset)
                }
                cancellable.cancel()
                subject.send(marker + 5)
                let values = seen.withLock { $0 }
                if values != Array([marker, marker + 1, marker + 2].prefix(values.count)) {
                    wrong.withLock { $0.append(values) }
                } else if values.count == 3 {
                    complete.withLock { $0[thread % 3] += 1 }
                }
            }
        }
        XCTAssertEqual(wrong.withLock { $0 }, [], "a subscriber saw values out of order, or after its cancel")
        for count in complete.withLock({ $0 }) {
            XCTAssertGreaterThan(count, rounds / 2, "too few subscribers saw their three values")
        }
        XCTAssertEqual(LiveObjects.count, before, "cancelled subscriptions are still alive (counted in debug builds)")
    }

    func testConcurrentSubscribeSendAndCancelStaysConsistent() {
        let subject = PassthroughSubject<Int, Never>()
        let total = LockedBox(0)
        runConcurrently(threads: 8) { thread in
            for i in 0..<500 {
                if thread % 2 == 0 {
                    let cancellable = subject.sink { _ in total.withLock { $0 += 1 } }
                    subject.send(i)
                    cancellable.cancel()
                } else {
                    subject.send(i)
                }
            }
        }
        // Every subscriber sent to itself at least once while subscribed.
        XCTAssertGreaterThanOrEqual(total.withLock { $0 }, 4 * 500)
        subject.send(completion: .finished)
    }

    /// Lock inversion: thread 0 holds a user lock while it sends; the subscriber, delivering on another thread,
    /// takes that lock. A design that makes thread 0 wait for the other thread's delivery deadlocks here; the
    /// emitter hands thread 0's value over and returns. (The user lock is recursive so a sender that delivers on its
    /// own thread may take it again.)
    func testSubscriberTakingAForeignLockHeldBySenderDoesNotDeadlock() {
        let subject = PassthroughSubject<Int, Never>()
        let foreign = NSRecursiveLock()
        let seen = LockedBox(0)
        let cancellable = subject.sink { _ in
            foreign.lock()
            seen.withLock { $0 += 1 }
            foreign.unlock()
        }
        runConcurrently(threads: 4, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    foreign.lock()
                    subject.send(i)
                    foreign.unlock()
                } else {
                    subject.send(i)
                }
            }
        }
        XCTAssertEqual(seen.withLock { $0 }, 8_000)
        cancellable.cancel()
    }
}
