import Foundation
import Untangle
import UntangleExtras
import UntangleSync
import UntangleTesting
import XCTest

final class CreateTests: XCTestCase {
    typealias Events = [UntangleTestSupport.Event<Int, TestError>]

    /// A producer that sends `values` then `completion` synchronously, counting its teardowns.
    private func producer(
        _ values: [Int], _ completion: Subscribers.Completion<TestError>? = .finished, teardowns: Counter,
        policy: Publishers.Create<Int, TestError>.BufferingPolicy = .unbounded
    ) -> AnyPublisher<Int, TestError> {
        AnyPublisher.create(bufferingPolicy: policy) { subscriber in
            values.forEach(subscriber.send)
            if let completion { subscriber.send(completion: completion) }
            return AnyCancellable { teardowns.increment() }
        }
    }

    func testSynchronousProducerWithUnlimitedDemandDeliversEverythingThenTearsDownOnce() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>()
        producer([1, 2, 3], teardowns: teardowns).subscribe(recorder)
        XCTAssertEqual(
            recorder.events, [.subscription("Create"), .value(1), .value(2), .value(3), .completion(.finished)])
        XCTAssertEqual(teardowns.value, 1)
        recorder.cancel()
        XCTAssertEqual(teardowns.value, 1, "cancel after completion must not run the teardown again")
    }

    func testValuesBeyondDemandAreBufferedUntilRequestedAndTheCompletionFollowsThem() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        producer([1, 2, 3, 4, 5], teardowns: teardowns).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1)])
        XCTAssertEqual(teardowns.value, 1, "the producer finished: its teardown runs even though values wait")
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(recorder.completions, [])
        recorder.request(.max(2))
        XCTAssertEqual(
            recorder.events,
            [.subscription("Create"), .value(1), .value(2), .value(3), .value(4), .value(5), .completion(.finished)])
    }

    /// Each subscription forms its own per-value entry for its subscriber's type (the producer's `send` runs code
    /// specialized for it): subscribers of different types on one publisher must each get exactly their producer's
    /// values.
    func testSubscribersOfDifferentTypesEachGetTheirOwnProducersValues() {
        var producers: [Publishers.Create<Int, TestError>.Subscriber] = []
        let publisher = Publishers.Create<Int, TestError> { subscriber in
            producers.append(subscriber)
            return AnyCancellable {}
        }
        let recorder = Recorder<Int, TestError>()
        publisher.subscribe(recorder)
        let mapped = Recorder<String, TestError>()
        publisher.map { "\($0)" }.subscribe(mapped)
        var sunk: [Int] = []
        let cancellable = publisher.sink(receiveCompletion: { _ in }, receiveValue: { sunk.append($0) })
        XCTAssertEqual(producers.count, 3)
        for (index, producer) in producers.enumerated() {
            producer.send(index * 10 + 1)
            producer.send(index * 10 + 2)
        }
        producers[0].send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(mapped.values, ["11", "12"])
        XCTAssertEqual(sunk, [21, 22])
        cancellable.cancel()
        producers[2].send(23)
        XCTAssertEqual(sunk, [21, 22], "nothing after cancel")
        XCTAssertEqual(mapped.values, ["11", "12"])
    }

    func testZeroInitialDemandThenLaterRequest() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        producer([1, 2], nil, teardowns: teardowns).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Create")])
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1), .value(2)])
        XCTAssertEqual(teardowns.value, 0)
        recorder.cancel()
        XCTAssertEqual(teardowns.value, 1)
    }

    func testDemandReturnedFromReceiveIsHonoured() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { _, value in value < 3 ? .max(1) : .none
        }
        producer([1, 2, 3, 4], teardowns: teardowns).subscribe(recorder)
        XCTAssertEqual(recorder.values, [1, 2, 3])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1, 2, 3, 4])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testReentrantRequestFromReceiveDeliversIteratively() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        producer(Array(0..<10_000), teardowns: teardowns).subscribe(recorder)
        XCTAssertEqual(recorder.values, Array(0..<10_000))
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testFailureWaitsForTheBufferedValues() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        producer([1], .failure(TestError(7)), teardowns: teardowns).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Create")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1), .completion(.failure(TestError(7)))])
    }

    func testBufferingNewestKeepsTheNewestValuesBeyondDemand() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        producer([1, 2, 3, 4, 5], teardowns: teardowns, policy: .bufferingNewest(2)).subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.unlimited)
        XCTAssertEqual(
            recorder.events, [.subscription("Create"), .value(1), .value(4), .value(5), .completion(.finished)])
    }

    func testBufferingOldestKeepsTheOldestValuesBeyondDemand() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        producer([1, 2, 3, 4, 5], teardowns: teardowns, policy: .bufferingOldest(2)).subscribe(recorder)
        recorder.request(.unlimited)
        XCTAssertEqual(
            recorder.events, [.subscription("Create"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testBufferingNewestNeverDropsValuesThatDemandCovers() {
        // Demand 3 is outstanding while the producer is blocked out (the values are queued, not delivered, because
        // the subscriber has not started): the limit counts only values beyond demand.
        let subscriberBox = LockedBox<Publishers.Create<Int, TestError>.Subscriber?>(nil)
        let publisher = AnyPublisher<Int, TestError>.create(bufferingPolicy: .bufferingNewest(1)) { subscriber in
            subscriberBox.withLock { $0 = subscriber }
            return AnyCancellable {}
        }
        let recorder = Recorder<Int, TestError>(initialDemand: .max(3))
        publisher.subscribe(recorder)
        let subscriber = subscriberBox.withLock { $0 }!
        for value in 1...6 { subscriber.send(value) }
        XCTAssertEqual(recorder.values, [1, 2, 3])
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.values, [1, 2, 3, 6])
    }

    func testBufferingNewestZeroDropsEverythingWithoutDemand() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        producer([1, 2, 3, 4], teardowns: teardowns, policy: .bufferingNewest(0)).subscribe(recorder)
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1), .value(2), .completion(.finished)])
    }

    func testCancelRunsTheTeardownOnceAndIgnoresLaterSends() {
        let teardowns = Counter()
        let subscriberBox = LockedBox<Publishers.Create<Int, TestError>.Subscriber?>(nil)
        let publisher = AnyPublisher<Int, TestError>.create { subscriber in
            subscriberBox.withLock { $0 = subscriber }
            return AnyCancellable { teardowns.increment() }
        }
        let recorder = Recorder<Int, TestError>()
        publisher.subscribe(recorder)
        let subscriber = subscriberBox.withLock { $0 }!
        subscriber.send(1)
        recorder.cancel()
        recorder.cancel()
        subscriber.send(2)
        subscriber.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1)])
        XCTAssertEqual(teardowns.value, 1)
    }

    func testOnlyTheFirstCompletionCountsAndTheTeardownRunsOnce() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError>()
        AnyPublisher<Int, TestError>.create { subscriber in
            subscriber.send(completion: .failure(TestError(1)))
            subscriber.send(completion: .finished)
            subscriber.send(9)
            return AnyCancellable { teardowns.increment() }
        }.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Create"), .completion(.failure(TestError(1)))])
        XCTAssertEqual(teardowns.value, 1, "completion inside body: the teardown runs once body returns it")
    }

    func testCancelInsideReceiveSubscriptionNeverStartsTheProducer() {
        let started = Counter()
        let recorder = Recorder<Int, TestError>(initialDemand: nil) { _, _ in
            .none
        } onSubscription: {
            _, subscription in
            subscription.cancel()
        }
        AnyPublisher<Int, TestError>.create { subscriber in
            started.increment()
            return AnyCancellable {}
        }.subscribe(recorder)
        XCTAssertEqual(started.value, 0)
        XCTAssertEqual(recorder.events, [.subscription("Create")])
    }

    func testCancelFromInsideReceiveStopsTheProducerAndRunsTheTeardownOnce() {
        let teardowns = Counter()
        let recorder = Recorder<Int, TestError> { recorder, value in
            if value == 2 { recorder.cancel() }
            return .none
        }
        producer([1, 2, 3, 4], teardowns: teardowns).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1), .value(2)])
        XCTAssertEqual(teardowns.value, 1)
    }

    func testEachSubscriptionRunsItsOwnProducer() {
        let runs = Counter()
        let publisher = AnyPublisher<Int, TestError>.create { subscriber in
            runs.increment()
            subscriber.send(runs.value)
            subscriber.send(completion: .finished)
            return AnyCancellable {}
        }
        let first = Recorder<Int, TestError>()
        let second = Recorder<Int, TestError>()
        publisher.subscribe(first)
        publisher.subscribe(second)
        XCTAssertEqual(first.values, [1])
        XCTAssertEqual(second.values, [2])
    }

    func testReleasesTheSubscriberAndTheProducerAfterCancel() {
        weak var weakRecorder: Recorder<Int, TestError>?
        weak var weakProducerState: Counter?
        var subscription: Subscription?
        do {
            let producerState = Counter()
            weakProducerState = producerState
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            AnyPublisher<Int, TestError>.create { subscriber in
                // The teardown captures the producer's state and the subscriber handle (a cycle until the end).
                AnyCancellable { _ = (producerState, subscriber) }
            }.subscribe(recorder)
            subscription = recorder.subscription
        }
        XCTAssertNotNil(weakRecorder)
        XCTAssertNotNil(weakProducerState)
        subscription?.cancel()
        XCTAssertNil(weakRecorder, "cancel must release the subscriber")
        XCTAssertNil(weakProducerState, "cancel must release the teardown and what it captured")
        _ = subscription
    }

    func testReleasesTheSubscriberAfterCompletion() {
        weak var weakRecorder: Recorder<Int, TestError>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            producer([1], teardowns: Counter()).subscribe(recorder)
            subscription = recorder.subscription
        }
        XCTAssertNil(weakRecorder, "the completion must release the subscriber")
        _ = subscription
    }

    func testProducerSendingFromAnotherThreadAfterSubscribeIsDelivered() {
        let done = DispatchSemaphore(value: 0)
        let publisher = AnyPublisher<Int, TestError>.create { subscriber in
            Thread {
                (1...100).forEach(subscriber.send)
                subscriber.send(completion: .finished)
                done.signal()
            }.start()
            return AnyCancellable {}
        }
        let recorder = Recorder<Int, TestError>()
        publisher.subscribe(recorder)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(recorder.values, Array(1...100))
        XCTAssertEqual(recorder.completions, [.finished])
    }
}

final class CreateConcurrencyTests: XCTestCase {
    private func sharedSubscriber(
        policy: Publishers.Create<Int, Never>.BufferingPolicy = .unbounded,
        subscribe: (AnyPublisher<Int, Never>) -> Void
    ) -> Publishers.Create<Int, Never>.Subscriber {
        let box = LockedBox<Publishers.Create<Int, Never>.Subscriber?>(nil)
        subscribe(
            AnyPublisher.create(bufferingPolicy: policy) { subscriber in
                box.withLock { $0 = subscriber }
                return AnyCancellable {}
            })
        return box.withLock { $0 }!
    }

    /// 8 threads send into one producer handle: every value arrives once, each thread's values in order, and the
    /// subscriber never sees two calls at once.
    func testEightSendingThreadsAreSerializedAndLoseNothing() {
        let detector = OverlapDetector()
        let perThread = LockedBox([[Int]](repeating: [], count: 8))
        var cancellable: AnyCancellable?
        let subscriber = sharedSubscriber { publisher in
            cancellable = publisher.sink { value in
                detector.around { perThread.withLock { $0[value / 100_000].append(value % 100_000) } }
            }
        }
        runConcurrently(threads: 8) { thread in
            for i in 0..<2_000 { subscriber.send(thread * 100_000 + i) }
        }
        XCTAssertEqual(detector.overlaps, 0)
        for thread in 0..<8 {
            XCTAssertEqual(perThread.withLock { $0[thread] }, Array(0..<2_000), "thread \(thread)")
        }
        cancellable?.cancel()
    }

    /// A subscriber asking for one value at a time while 8 threads send: the unbounded buffer loses nothing, and
    /// the subscriber never receives more than it asked for.
    func testOneAtATimeDemandWithEightSendersLosesNothingAndNeverExceedsDemand() {
        let detector = OverlapDetector()
        let outstanding = LockedBox(0)
        let excess = Counter()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in
            detector.around {
                let left = outstanding.withLock {
                    $0 -= 1; return $0
                }
                if left < 0 { excess.increment() }
            }
            return .none
        }
        let subscriber = sharedSubscriber { $0.subscribe(recorder) }
        runConcurrently(threads: 9) { thread in
            if thread == 8 {
                for _ in 0..<4_000 {
                    outstanding.withLock { $0 += 1 }
                    recorder.request(.max(1))
                }
            } else {
                for i in 0..<500 { subscriber.send(thread * 1_000 + i) }
            }
        }
        XCTAssertEqual(detector.overlaps, 0)
        XCTAssertEqual(excess.value, 0, "a value was delivered beyond demand")
        XCTAssertEqual(Set(recorder.values).count, 4_000)
        recorder.cancel()
    }

    /// Reentrant sends while other threads send: the subscriber answers every value from 4 sending threads with an
    /// echo sent from inside its `receive`. Every value and every echo arrives once, each echo after its value, and
    /// no `receive` ever runs inside another (same thread: the trampoline) or beside another (other threads).
    func testReentrantEchoesWhileFourThreadsSendAreSerializedAndLoseNothing() {
        let echo = 1_000_000
        let detector = OverlapDetector()
        let received = LockedBox<[Int]>([])
        let producer = LockedBox<Publishers.Create<Int, Never>.Subscriber?>(nil)
        var cancellable: AnyCancellable?
        let subscriber = sharedSubscriber { publisher in
            cancellable = publisher.sink { value in
                detector.around {
                    received.withLock { $0.append(value) }
                    if value < echo { producer.withLock { $0 }?.send(value + echo) }
                }
            }
        }
        producer.withLock { $0 = subscriber }
        runConcurrently(threads: 4) { thread in
            for i in 0..<1_000 { subscriber.send(thread * 10_000 + i) }
        }
        XCTAssertEqual(detector.overlaps, 0, "a receive ran inside or beside another")
        let values = received.withLock { $0 }
        let originals = (0..<4).flatMap { thread in (0..<1_000).map { thread * 10_000 + $0 } }
        XCTAssertEqual(values.sorted(), (originals + originals.map { $0 + echo }).sorted())
        var position: [Int: Int] = [:]
        for (index, value) in values.enumerated() { position[value] = index }
        for value in originals where (position[value] ?? .max) > (position[value + echo] ?? .min) {
            XCTFail("the echo of \(value) arrived before it")
            break
        }
        producer.withLock { $0 = nil }
        cancellable?.cancel()
    }

    /// Bounded buffer under contention: values demand covered are never dropped (unlimited demand: all arrive).
    func testBoundedPolicyDropsNothingThatDemandCovers() {
        let received = Counter()
        var cancellable: AnyCancellable?
        let subscriber = sharedSubscriber(policy: .bufferingNewest(1)) { publisher in
            cancellable = publisher.sink { _ in received.increment() }
        }
        runConcurrently(threads: 8) { thread in
            for i in 0..<1_000 { subscriber.send(thread * 1_000 + i) }
        }
        XCTAssertEqual(received.value, 8_000)
        cancellable?.cancel()
    }

    /// Completion racing sends: exactly one completion, last; the teardown runs once.
    func testCompletionRacingSendsDeliversOneCompletionLast() {
        for _ in 0..<100 {
            let teardowns = Counter()
            let box = LockedBox<Publishers.Create<Int, TestError>.Subscriber?>(nil)
            let recorder = Recorder<Int, TestError>()
            AnyPublisher<Int, TestError>.create { subscriber in
                box.withLock { $0 = subscriber }
                return AnyCancellable { teardowns.increment() }
            }.subscribe(recorder)
            let subscriber = box.withLock { $0 }!
            runConcurrently(threads: 3) { thread in
                switch thread {
                case 0: for i in 0..<100 { subscriber.send(i) }
                case 1: subscriber.send(completion: .failure(TestError()))
                default: recorder.cancel()
                }
            }
            XCTAssertLessThanOrEqual(recorder.completions.count, 1)
            if !recorder.completions.isEmpty {
                guard case .completion = recorder.events.last else {
                    XCTFail("completion must be last: \(recorder.events)")
                    continue
                }
            }
            XCTAssertEqual(teardowns.value, 1)
        }
    }

    /// Lock inversion: one thread holds a user lock while sending; the subscriber, delivering on another thread,
    /// takes that lock. The sender must never wait for the other thread's delivery.
    func testSubscriberTakingALockHeldByASenderDoesNotDeadlock() {
        let foreign = NSRecursiveLock()
        let seen = Counter()
        var cancellable: AnyCancellable?
        let subscriber = sharedSubscriber { publisher in
            cancellable = publisher.sink { _ in
                foreign.lock()
                seen.increment()
                foreign.unlock()
            }
        }
        runConcurrently(threads: 4, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    foreign.lock()
                    subscriber.send(i)
                    foreign.unlock()
                } else {
                    subscriber.send(i)
                }
            }
        }
        XCTAssertEqual(seen.value, 8_000)
        cancellable?.cancel()
    }
}

// MARK: Reentrant sends (the trampoline)

extension CreateTests {
    /// Regression: a producer whose `send` answers each value from inside the subscriber's `receive` (value n sends
    /// n + 1) used to be delivered nested, one stack level deeper per value, and a long chain overflowed the stack.
    /// Now each reentrant value is delivered after the current `receive` returns: a million-value chain runs on this
    /// thread's ordinary stack, never more than one `receive` deep, with the stack pointer inside one small range.
    func testAMillionReentrantSendsRunInConstantStackDepth() {
        let last = 1_000_000
        let chain = ChainSubscriber(last: last)
        AnyPublisher<Int, Never>.create { subscriber in
            chain.producer = subscriber
            subscriber.send(0)
            return AnyCancellable {}
        }.subscribe(chain)
        XCTAssertEqual(chain.received, last + 1)
        XCTAssertTrue(chain.inOrder, "values arrived out of order")
        XCTAssertTrue(chain.finished, "the completion sent after the last value arrived")
        XCTAssertEqual(chain.deepest, 1, "a receive ran inside another receive")
        XCTAssertLessThan(
            chain.stackSpan, 16 * 1024,
            "the stack pointer moved \(chain.stackSpan) bytes across the chain: delivery recursed")
    }

    /// A reentrant send is delivered after the `receive` that sent it returns, and the values keep the order in
    /// which they were sent; a completion sent from inside `receive` follows the values sent before it.
    func testReentrantSendsAreDeliveredAfterTheCurrentReceiveReturnsInOrder() {
        let log = LockedBox<[String]>([])
        let producer = LockedBox<Publishers.Create<Int, Never>.Subscriber?>(nil)
        let cancellable = AnyPublisher<Int, Never>.create { subscriber in
            producer.withLock { $0 = subscriber }
            subscriber.send(1)
            return AnyCancellable {}
        }.sink(
            receiveCompletion: { _ in log.withLock { $0.append("finished") } },
            receiveValue: { value in
                log.withLock { $0.append("begin \(value)") }
                if value == 1 {
                    let subscriber = producer.withLock { $0 }
                    subscriber?.send(2)
                    subscriber?.send(3)
                    subscriber?.send(completion: .finished)
                }
                log.withLock { $0.append("end \(value)") }
            })
        XCTAssertEqual(
            log.withLock { $0 }, ["begin 1", "end 1", "begin 2", "end 2", "begin 3", "end 3", "finished"])
        cancellable.cancel()
    }

    /// Subjects keep Apple's order: a send from inside `receive` is delivered nested, depth first (only `create`,
    /// whose documentation promises one signal at a time, trampolines).
    func testASubjectStillDeliversAReentrantSendNested() {
        let log = LockedBox<[String]>([])
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = subject.sink { value in
            log.withLock { $0.append("begin \(value)") }
            if value == 1 { subject.send(2) }
            log.withLock { $0.append("end \(value)") }
        }
        subject.send(1)
        XCTAssertEqual(log.withLock { $0 }, ["begin 1", "begin 2", "end 2", "end 1"])
        cancellable.cancel()
    }

    /// Reentrant sends beyond the subscriber's demand wait in the buffer like any other, and the demand the
    /// subscriber returns or requests later releases them in order.
    func testReentrantSendsBeyondDemandWaitForDemand() {
        let producer = LockedBox<Publishers.Create<Int, TestError>.Subscriber?>(nil)
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1)) { _, value in
            if value == 1 {
                let subscriber = producer.withLock { $0 }
                subscriber?.send(2)
                subscriber?.send(3)
            }
            return .none
        }
        AnyPublisher<Int, TestError>.create { subscriber in
            producer.withLock { $0 = subscriber }
            subscriber.send(1)
            return AnyCancellable {}
        }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [1, 2])
        recorder.request(.max(5))
        XCTAssertEqual(recorder.values, [1, 2, 3])
        recorder.cancel()
    }
}

/// Answers each value n with n + 1 from inside `receive`, up to `last`, then sends the completion; records the
/// nesting depth and the range of stack addresses its `receive` ran at. Used on one thread only.
private final class ChainSubscriber: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never

    let last: Int
    var producer: Publishers.Create<Int, Never>.Subscriber?
    private(set) var received = 0
    private(set) var inOrder = true
    private(set) var finished = false
    private(set) var deepest = 0
    private var depth = 0
    private var lowest = Int.max
    private var highest = Int.min

    init(last: Int) { self.last = last }

    /// The distance between the deepest and the shallowest stack address seen in `receive`.
    var stackSpan: Int { highest - lowest }

    func receive(subscription: Subscription) {
        subscription.request(.unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        depth += 1
        defer { depth -= 1 }
        deepest = max(deepest, depth)
        var marker = 0
        let address = withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
        lowest = min(lowest, address)
        highest = max(highest, address)
        if input != received { inOrder = false }
        received += 1
        if input < last {
            producer?.send(input + 1)
        } else {
            producer?.send(completion: .finished)
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        finished = true
        producer = nil
    }
}

// Scenarios of bugs other implementations shipped and later fixed.
extension CreateTests {
    // ReactiveX/RxSwift 214f7ffc (issue 2533): what a publisher's producer captured stayed alive for as long as a
    // subscription did, once the producer had run; here it is released with the publisher, the subscription keeps
    // only the teardown the producer returned.
    func testALiveSubscriptionKeepsOnlyTheTeardownNotTheProducer() {
        weak var weakCaptured: Token?
        let teardowns = Counter()
        let recorder = Recorder<Int, Never>()
        do {
            let captured = Token(1)
            weakCaptured = captured
            AnyPublisher<Int, Never>.create { subscriber in
                _ = captured
                subscriber.send(1)
                return AnyCancellable { teardowns.add(1) }
            }
            .subscribe(recorder)
        }
        XCTAssertEqual(recorder.events, [.subscription("Create"), .value(1)])
        XCTAssertNil(
            weakCaptured, "released once the producer ran and the publisher went, while the subscription lives on")
        recorder.cancel()
        XCTAssertEqual(teardowns.value, 1)
    }
}
