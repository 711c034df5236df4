import Untangle
import UntangleSync
import XCTest

final class SinkTests: XCTestCase {
    private func makeSink(
        values: LockedBox<[Int]>, completions: LockedBox<[Subscribers.Completion<TestError>]>
    ) -> Subscribers.Sink<Int, TestError> {
        Subscribers.Sink(
            receiveCompletion: { completion in completions.withLock { $0.append(completion) } },
            receiveValue: { value in values.withLock { $0.append(value) } })
    }

    func testRequestsUnlimitedOnceAndCallsTheClosures() {
        let values = LockedBox<[Int]>([])
        let completions = LockedBox<[Subscribers.Completion<TestError>]>([])
        let sink = makeSink(values: values, completions: completions)
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(sink)
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(upstream.send(2), .none)
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(values.withLock { $0 }, [1, 2])
        XCTAssertEqual(completions.withLock { $0 }, [.failure(TestError(4))])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testSinkMethodDeliversASynchronousPublisherBeforeReturning() {
        var values: [Int] = []
        var completions: [Subscribers.Completion<Never>] = []
        let cancellable = [1, 2, 3].publisher.sink(
            receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })
        XCTAssertEqual(values, [1, 2, 3])
        XCTAssertEqual(completions, [.finished])
        withExtendedLifetime(cancellable) {}
    }

    func testSinkReceiveValueOnlyForNeverFailingPublishers() {
        var values: [String] = []
        let cancellable = Just("x").sink { values.append($0) }
        XCTAssertEqual(values, ["x"])
        withExtendedLifetime(cancellable) {}
    }

    func testSecondSubscriptionIsCancelled() {
        let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let first = ManualPublisher<Int, TestError>()
        let second = ManualPublisher<Int, TestError>()
        first.subscribe(sink)
        second.subscribe(sink)
        XCTAssertEqual(first.history, [.request(.unlimited)])
        XCTAssertEqual(second.history, [.cancel])
    }

    func testCancelForwardsExactlyOneCancelUpstreamEvenIfCalledTwice() {
        let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(sink)
        sink.cancel()
        sink.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    /// The sink keeps a class subscription as a plain reference and boxes any other; both must get the cancel.
    func testCancelReachesASubscriptionThatIsNotAClassInstance() {
        struct ValueSubscription: Subscription {
            let log: LockedBox<[String]>
            let combineIdentifier = CombineIdentifier()
            func request(_ demand: Subscribers.Demand) { log.withLock { $0.append("request \(demand)") } }
            func cancel() { log.withLock { $0.append("cancel") } }
        }
        let log = LockedBox<[String]>([])
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        sink.receive(subscription: ValueSubscription(log: log))
        sink.cancel()
        sink.cancel()
        XCTAssertEqual(log.withLock { $0 }, ["request unlimited", "cancel"])
    }

    /// The sink keeps its subscription as a manually retained reference in its state word: releasing the sink must
    /// release it (without cancelling it: a released `Sink`, unlike an `AnyCancellable`, does not cancel), and so
    /// must the completion, while the sink lives on.
    func testTheSinkReleasesItsSubscriptionOnCompletionAndOnDeinitWithoutCancelling() {
        let log = LockedBox<[String]>([])
        weak var released: HeldSubscription?
        do {
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
            let subscription = HeldSubscription(log: log)
            released = subscription
            sink.receive(subscription: subscription)
        }
        XCTAssertNil(released, "a released sink still holds its subscription")
        let completed = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        do {
            let subscription = HeldSubscription(log: log)
            released = subscription
            completed.receive(subscription: subscription)
        }
        XCTAssertNotNil(released, "the sink holds its subscription until it ends")
        completed.receive(completion: .finished)
        XCTAssertNil(released, "a completed sink still holds its subscription")
        completed.cancel()
        XCTAssertEqual(log.withLock { $0 }, ["request unlimited", "request unlimited"])
    }

    func testCancelBeforeSubscriptionCancelsTheSubscriptionWhenItArrives() {
        let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { _ in }, receiveValue: { _ in })
        sink.cancel()
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(sink)
        XCTAssertEqual(upstream.history, [.cancel])
    }

    func testCancelAfterCompletionForwardsNothing() {
        let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(sink)
        upstream.send(completion: .finished)
        sink.cancel()
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testCancelInsideReceiveValueStopsASynchronousPublisher() {
        var values: [Int] = []
        var completions: [Subscribers.Completion<Never>] = []
        var sink: Subscribers.Sink<Int, Never>?
        sink = Subscribers.Sink(
            receiveCompletion: { completions.append($0) },
            receiveValue: { value in
                values.append(value)
                if value == 2 { sink?.cancel() }
            })
        [1, 2, 3].publisher.subscribe(sink!)
        XCTAssertEqual(values, [1, 2])
        XCTAssertEqual(completions, [])
        sink = nil
    }

    func testReleasingTheAnyCancellableCancelsUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        var cancellable: AnyCancellable? = upstream.sink(receiveCompletion: { _ in }, receiveValue: { _ in })
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        withExtendedLifetime(cancellable) {}
        cancellable = nil
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }

    func testValuesAfterCompletionDoNotReachTheClosure() {
        let values = LockedBox<[Int]>([])
        let completions = LockedBox<[Subscribers.Completion<TestError>]>([])
        let sink = makeSink(values: values, completions: completions)
        let upstream = ManualPublisher<Int, TestError>()
        upstream.subscribe(sink)
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(2)
        upstream.send(completion: .failure(TestError()))
        XCTAssertEqual(values.withLock { $0 }, [1])
        XCTAssertEqual(completions.withLock { $0 }, [.finished])
    }

    func testClosuresAreReleasedAfterCompletion() {
        weak var weakToken: Token?
        let sink: Subscribers.Sink<Int, Never>
        do {
            let token = Token()
            weakToken = token
            sink = Subscribers.Sink(
                receiveCompletion: { _ in withExtendedLifetime(token) {} },
                receiveValue: { _ in withExtendedLifetime(token) {} })
        }
        XCTAssertNotNil(weakToken, "the sink does not hold its closures")
        Just(1).subscribe(sink)
        XCTAssertNil(weakToken, "the sink still holds its closures after the completion")
        withExtendedLifetime(sink) {}
    }

    // Regression: the completion closure completing its own sink again recursed once per nested call.
    func testACompletionSentFromInsideReceiveCompletionIsIgnored() {
        var calls = 0
        var sinkReference: Subscribers.Sink<Int, Never>?
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { completion in
                calls += 1
                if calls < 10 {
                    sinkReference?.receive(completion: completion)
                }
            },
            receiveValue: { _ in })
        sinkReference = sink
        sink.receive(subscription: Subscriptions.empty)
        sink.receive(completion: .finished)
        XCTAssertEqual(calls, 1)
        sinkReference = nil
    }

    private final class CompletesOnDeinit {
        let onDeinit: () -> Void
        init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    // Regression: an object captured by the value closure that completes the sink from its deinit (which runs when
    // the completion releases the closures) crashed the sink, which was still replacing its closures.
    func testACompletionSentWhileTheClosuresAreReleasedIsIgnored() {
        var completions: [Subscribers.Completion<Never>] = []
        let upstream = ManualPublisher<Int, Never>()
        var sinkReference: Subscribers.Sink<Int, Never>?
        let sink: Subscribers.Sink<Int, Never>
        do {
            let captured = CompletesOnDeinit { sinkReference?.receive(completion: .finished) }
            sink = Subscribers.Sink(
                receiveCompletion: { completions.append($0) },
                receiveValue: { _ in withExtendedLifetime(captured) {} })
        }
        sinkReference = sink
        upstream.subscribe(sink)
        upstream.send(completion: .finished)
        XCTAssertEqual(completions, [.finished])
        sinkReference = nil
    }

    func testTheSinkIsReleasedWhenTheCancellableIsCancelled() {
        weak var weakToken: Token?
        let upstream = ManualPublisher<Int, TestError>()
        var cancellable: AnyCancellable?
        do {
            let token = Token()
            weakToken = token
            cancellable = upstream.sink(
                receiveCompletion: { _ in withExtendedLifetime(token) {} },
                receiveValue: { _ in withExtendedLifetime(token) {} })
        }
        XCTAssertNotNil(weakToken)
        cancellable?.cancel()
        XCTAssertNil(weakToken, "the sink or its closures outlived cancellation")
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        withExtendedLifetime(cancellable) {}
    }

    /// The sink hands its retained subscription over to the cancel (`CancellableReference.cancel(retained:as:)`):
    /// the subscription is cancelled once and released right after, exactly once (a second release would crash, a
    /// missing one leaves it alive).
    func testCancelCancelsAClassSubscriptionOnceAndReleasesIt() {
        let log = LockedBox<[String]>([])
        weak var weakProbe: HeldSubscription?
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        do {
            let probe = HeldSubscription(log: log)
            weakProbe = probe
            sink.receive(subscription: probe)
        }
        XCTAssertNotNil(weakProbe, "the sink keeps its subscription")
        sink.cancel()
        XCTAssertNil(weakProbe, "the subscription outlived the cancel")
        sink.cancel()
        XCTAssertEqual(log.withLock { $0 }, ["request unlimited", "cancel"])
    }

    /// `subject.sink { }` cancelled through its `AnyCancellable`: the cancellable hands the sink over to the cancel,
    /// the sink its subject subscription; afterwards the sink, its closures and the subscription are gone, and the
    /// subject delivers nothing to them.
    func testCancellingASubjectSinkReleasesTheSinkAndItsSubscription() {
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox<[Int]>([])
        weak var weakToken: Token?
        var cancellable: AnyCancellable?
        do {
            let token = Token()
            weakToken = token
            cancellable = subject.sink { value in
                withExtendedLifetime(token) {}
                received.withLock { $0.append(value) }
            }
        }
        subject.send(1)
        cancellable?.cancel()
        XCTAssertNil(weakToken, "the sink or its closures outlived the cancel")
        subject.send(2)
        cancellable?.cancel()
        cancellable = nil
        subject.send(3)
        XCTAssertEqual(received.withLock { $0 }, [1])
    }

    func testDescriptionAndMirror() {
        let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        XCTAssertEqual(sink.description, "Sink")
        XCTAssertEqual(sink.playgroundDescription as? String, "Sink")
        XCTAssertEqual(sink.customMirror.children.count, 0)
        XCTAssertEqual(sink.combineIdentifier, CombineIdentifier(sink))
    }
}

final class SinkConcurrencyTests: XCTestCase {
    func testCancelFromEightThreadsForwardsExactlyOneCancel() {
        for _ in 0..<50 {
            let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { _ in }, receiveValue: { _ in })
            let upstream = ManualPublisher<Int, TestError>()
            upstream.subscribe(sink)
            runConcurrently(threads: 8) { _ in sink.cancel() }
            XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        }
    }

    /// The sink keeps its subscription in an atomic word, not under a lock: a cancel racing the arrival of the
    /// subscription must still cancel it exactly once, and the sink requests at most once. The request may reach the
    /// subscription after the cancel (the sink calls `request(.unlimited)` with no lock held, as the lock-based sink
    /// did, and a cancel on the other thread can land first); a subscription ignores a request after its cancel
    /// (Reactive Streams rule 3.6), which is why the order is not asserted.
    func testCancelRacingReceiveSubscriptionCancelsTheSubscriptionExactlyOnce() {
        for _ in 0..<300 {
            let sink = Subscribers.Sink<Int, TestError>(receiveCompletion: { _ in }, receiveValue: { _ in })
            let upstream = ManualPublisher<Int, TestError>()
            runConcurrently(threads: 2) { index in
                if index == 0 { upstream.subscribe(sink) } else { sink.cancel() }
            }
            let history = upstream.history
            XCTAssertEqual(history.filter { $0 == .cancel }.count, 1, "\(history)")
            XCTAssertTrue(history.allSatisfy { $0 == .cancel || $0 == .request(.unlimited) }, "\(history)")
            XCTAssertLessThanOrEqual(history.filter { $0 == .request(.unlimited) }.count, 1, "\(history)")
        }
    }

    /// A completion racing a cancel: whichever comes first wins; the subscription is never cancelled twice, and
    /// the completion closure runs at most once.
    func testCompletionRacingCancelForwardsAtMostOneCancel() {
        for _ in 0..<300 {
            let completions = LockedBox(0)
            let sink = Subscribers.Sink<Int, TestError>(
                receiveCompletion: { _ in completions.withLock { $0 += 1 } }, receiveValue: { _ in })
            let upstream = ManualPublisher<Int, TestError>()
            upstream.subscribe(sink)
            runConcurrently(threads: 2) { index in
                if index == 0 { upstream.send(completion: .finished) } else { sink.cancel() }
            }
            let history = upstream.history
            XCTAssertEqual(history.first, .request(.unlimited), "\(history)")
            XCTAssertLessThanOrEqual(history.filter { $0 == .cancel }.count, 1, "\(history)")
            XCTAssertLessThanOrEqual(completions.withLock { $0 }, 1)
        }
    }

    func testCancelRacingDeliveryFromAnotherThread() {
        for _ in 0..<20 {
            let received = Counter()
            let sink = Subscribers.Sink<Int, Never>(
                receiveCompletion: { _ in }, receiveValue: { _ in received.increment() })
            let subject = PassthroughSubject<Int, Never>()
            subject.subscribe(sink)
            runConcurrently(threads: 2) { index in
                if index == 0 {
                    for value in 0..<1000 { subject.send(value) }
                } else {
                    sink.cancel()
                }
            }
            let afterCancel = received.value
            subject.send(-1)
            XCTAssertEqual(received.value, afterCancel, "a value reached the sink after cancel")
        }
    }
}

/// A subscription that is a class instance and logs its calls.
private final class HeldSubscription: Subscription {
    let log: LockedBox<[String]>
    init(log: LockedBox<[String]>) { self.log = log }
    func request(_ demand: Subscribers.Demand) { log.withLock { $0.append("request \(demand)") } }
    func cancel() { log.withLock { $0.append("cancel") } }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension SinkTests {
    // OpenCombine/OpenCombine adcee8c (issue 208): an upstream that finishes from inside cancel() reached the sink's
    // closures after the cancel (and reentered the sink's lock).
    func testCompletionSentFromInsideCancelDoesNotReachTheClosures() {
        let upstream = ReentrantUpstream<Int, Never>(onCancel: { $0.finish() })
        let seen = LockedBox<[String]>([])
        let cancellable = upstream.sink(
            receiveCompletion: { completion in seen.withLock { $0.append("\(completion)") } },
            receiveValue: { value in seen.withLock { $0.append("\(value)") } })
        upstream.send(1)
        cancellable.cancel()
        upstream.send(2)
        XCTAssertEqual(seen.withLock { $0 }, ["1"])
        XCTAssertEqual(upstream.log, ["request(unlimited)", "cancel"])
    }

    // cx-org/CombineX 939692f: a sink that had finished took a second subscription and received its values.
    func testAFinishedSinkCancelsASecondSubscriptionAndGetsNothingFromIt() {
        let first = PassthroughSubject<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let seen = LockedBox<[String]>([])
        let sink = Subscribers.Sink<Int, Never>(
            receiveCompletion: { completion in seen.withLock { $0.append("\(completion)") } },
            receiveValue: { value in seen.withLock { $0.append("\(value)") } })
        first.subscribe(sink)
        first.send(1)
        first.send(completion: .finished)
        second.subscribe(sink)
        second.send(2)
        second.finish()
        XCTAssertEqual(seen.withLock { $0 }, ["1", "finished"])
        XCTAssertEqual(second.history, [.cancel])
    }

    // cx-org/CombineX a190a70: a sink ignored what an upstream sent before any subscription. Combine's sink delivers
    // it (a value after the completion does not: CombineX expected one there, which the contract rules out).
    func testValuesAndACompletionSentBeforeAnySubscriptionReachTheClosures() throws {
        let upstream = CapturingPublisher<Int, Never>()
        let seen = LockedBox<[String]>([])
        let cancellable = upstream.sink(
            receiveCompletion: { completion in seen.withLock { $0.append("\(completion)") } },
            receiveValue: { value in seen.withLock { $0.append("\(value)") } })
        let subscriber = try XCTUnwrap(upstream.erasedSubscriber)
        XCTAssertEqual(subscriber.receive(1), .none)
        subscriber.receive(completion: .finished)
        _ = subscriber.receive(2)
        XCTAssertEqual(seen.withLock { $0 }, ["1", "finished"])
        withExtendedLifetime(cancellable) {}
    }
}
