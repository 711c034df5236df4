import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class BufferTests: XCTestCase {
    func testKeepFullPrefetchesSizeAndRefillsOnePerDeliveredValue() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(3))])
        for value in 1...3 { XCTAssertEqual(upstream.send(value), .none) }
        XCTAssertEqual(recorder.events, [.subscription("Buffer")])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(upstream.history, [.request(.max(3)), .request(.max(2))])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(upstream.send(4), .max(1), "passed straight through: one more is asked for at once")
        XCTAssertEqual(recorder.values, [1, 2, 3, 4])
    }

    func testByRequestAsksForEverythingAtOnceAndForwardsNoRequest() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropNewest).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "as Apple's: unlimited at subscription")
        recorder.request(.max(2))
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(recorder.values, [1])
    }

    /// Regression: the upstream is asked before the subscriber gets its subscription (Apple's order); what the
    /// upstream sends from inside that request must wait until the subscriber has it.
    func testWhatTheUpstreamSendsBeforeTheSubscriberIsSubscribedWaitsForIt() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        [7].publisher.buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .value(7), .completion(.finished)])
    }

    /// What a subscriber that requests `demand` inside `receive(subscription:)` has received when that request
    /// returns, and everything it received once the subscription was made.
    private func insideAndAfterARequestInReceiveSubscription<P: Publisher>(
        _ publisher: P, requesting demand: Subscribers.Demand
    ) -> (inside: [Event<Int, Never>], after: [Event<Int, Never>]) where P.Output == Int, P.Failure == Never {
        let inside = LockedBox<[Event<Int, Never>]>([])
        let recorder = Recorder<Int, Never>(
            initialDemand: nil,
            onSubscription: { recorder, subscription in
                subscription.request(demand)
                inside.withLock { $0 = recorder.events }
            })
        publisher.subscribe(recorder)
        return (inside.withLock { $0 }, recorder.events)
    }

    // Regression (found by the differential check's time mode, exploratory seeds: `buffer(1, byRequest)` over a
    // sequence and `buffer(1, keepFull)` over a `Record`): a value already buffered when the subscriber received its
    // subscription reached it only after `receive(subscription:)` returned. As Apple's buffer (and `Just`) do, it
    // comes inside the request; `.finished` still waits for demand left after the last value.
    func testAValueAlreadyBufferedIsDeliveredInsideARequestMadeInReceiveSubscription() {
        let buffered = [3].publisher.buffer(size: 1, prefetch: .byRequest, whenFull: .dropNewest)
        let one = insideAndAfterARequestInReceiveSubscription(buffered, requesting: .max(1))
        XCTAssertEqual(one.inside, [.subscription("Buffer"), .value(3)])
        XCTAssertEqual(one.after, one.inside, "as Apple's, .finished waits for demand after the last value")
        let two = insideAndAfterARequestInReceiveSubscription(buffered, requesting: .max(2))
        XCTAssertEqual(two.inside, [.subscription("Buffer"), .value(3), .completion(.finished)])
        XCTAssertEqual(two.after, two.inside)
    }

    // The same for a synchronous upstream that `.keepFull`'s refill, requested inside that request, makes send
    // more: each value comes nested in the refill, inside the subscriber's request.
    func testASynchronousUpstreamsRefillsAreDeliveredInsideARequestMadeInReceiveSubscription() {
        for upstream in [
            AnyPublisher([1, 2, 3].publisher), AnyPublisher(Record(output: [1, 2, 3], completion: .finished)),
        ] {
            let buffered = upstream.buffer(size: 1, prefetch: .keepFull, whenFull: .dropNewest)
            let events = insideAndAfterARequestInReceiveSubscription(buffered, requesting: .max(4))
            XCTAssertEqual(
                events.inside, [.subscription("Buffer"), .value(1), .value(2), .value(3), .completion(.finished)])
            XCTAssertEqual(events.after, events.inside)
        }
    }

    // What the late delivery changed in a chain: `throttle` asks its upstream for `.unlimited` before its own
    // subscriber has asked and drops what arrives meanwhile, as it does for `Just` and a sequence; a buffered value
    // used to slip through.
    func testABufferedValueUnderThrottleBehavesAsTheUnbufferedSource() {
        let byRequest = [3].publisher.buffer(size: 1, prefetch: .byRequest, whenFull: .dropNewest)
        XCTAssertEqual(byRequest.eventsThroughThrottle(), [3].publisher.eventsThroughThrottle())
        XCTAssertEqual(byRequest.eventsThroughThrottle(), [.subscription("Throttle"), .completion(.finished)])
        let record = Record<Int, Never>(output: [1, 2], completion: .finished)
        let keepFull = record.buffer(size: 1, prefetch: .keepFull, whenFull: .dropNewest)
        XCTAssertEqual(keepFull.eventsThroughThrottle(), record.eventsThroughThrottle())
        XCTAssertEqual(keepFull.eventsThroughThrottle(), [.subscription("Throttle"), .completion(.finished)])
    }

    private func overflow(_ whenFull: Publishers.BufferingStrategy<TestError>) -> (
        Recorder<Int, TestError>, ManualPublisher<Int, TestError>
    ) {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.buffer(size: 2, prefetch: .byRequest, whenFull: whenFull).subscribe(recorder)
        // The upstream sends beyond demand (nobody asked yet): the buffer keeps what fits.
        for value in 1...4 { upstream.send(value) }
        return (recorder, upstream)
    }

    func testDropNewestKeepsTheFirstValues() {
        let (recorder, _) = overflow(.dropNewest)
        recorder.request(.max(5))
        XCTAssertEqual(recorder.values, [1, 2])
    }

    func testDropOldestKeepsTheLatestValues() {
        let (recorder, _) = overflow(.dropOldest)
        recorder.request(.max(5))
        XCTAssertEqual(recorder.values, [3, 4])
    }

    func testCustomErrorCancelsUpstreamOnceAndFailsAfterTheBufferedValuesAtTheNextRequest() {
        let (recorder, upstream) = overflow(.customError { TestError(9) })
        XCTAssertEqual(recorder.events, [.subscription("Buffer")], "the failure waits for the next request")
        upstream.send(5)
        recorder.request(.max(5))
        recorder.cancel()
        XCTAssertEqual(
            recorder.events,
            [.subscription("Buffer"), .value(1), .value(2), .completion(.failure(TestError(9)))])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel], "cancelled once")
    }

    func testCustomErrorWithoutDemandFailsAtOnceOnTheNextRequest() {
        let (recorder, _) = overflow(.customError { TestError(9) })
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .value(1), .completion(.failure(TestError(9)))])
    }

    func testSizeZeroWithDropNewestPassesNothing() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.buffer(size: 0, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
        XCTAssertEqual(upstream.history, [], "keepFull with size 0 asks for nothing")
        upstream.send(1)
        recorder.request(.max(1))
        upstream.send(2)
        XCTAssertEqual(recorder.values, [], "as Apple's: every value finds the buffer full")
    }

    func testFinishDeliversTheBufferedValuesFirstAsDemandAllows() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("Buffer")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .value(1)])
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events, [.subscription("Buffer"), .value(1), .value(2)],
            "as Apple's, the completion waits for demand after the last buffered value")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(
            upstream.history, [.request(.max(5)), .request(.max(1)), .request(.max(1))],
            "as Apple's, the refill is asked for even after the upstream finished; the last request refills nothing")
    }

    /// Regression (Apple's behaviour, issue 29): a subscriber that never requested anything gets `.finished` at its
    /// first request, and values the upstream sends after that `.finished` (nobody has seen it yet) go before it.
    func testFinishWaitsForTheNextRequestWhenNoValueWasEverRequested() throws {
        let upstream = HoldingPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(recorder)
        let subscriber = try XCTUnwrap(upstream.subscriber)
        let subscription = LoggingSubscription()
        subscriber.receive(subscription: subscription)
        subscriber.receive(completion: .finished)
        subscriber.receive(completion: .failure(TestError()))
        XCTAssertEqual(recorder.events, [.subscription("Buffer")], "held: no demand")
        // A misbehaving upstream sends on after its `.finished`: nobody has seen that yet, so the values go first.
        XCTAssertEqual(subscriber.receive(1), .none)
        XCTAssertEqual(subscriber.receive(2), .none)
        recorder.request(.max(2))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .value(1), .value(2)])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .value(1), .value(2), .completion(.finished)])
        recorder.request(.max(1))
        XCTAssertEqual(subscriber.receive(3), .none)
        XCTAssertEqual(recorder.events.count, 4, "nothing after the completion")
        XCTAssertEqual(subscription.log, ["request(unlimited)"], "a finished upstream is not cancelled")
    }

    /// As Apple's: a failure needs no demand, and it drops what is queued.
    func testFailureIsDeliveredWithoutDemandWhileAFinishWouldWait() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(recorder)
        upstream.send(completion: .failure(TestError(1)))
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .completion(.failure(TestError(1)))])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .completion(.failure(TestError(1)))])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testFinishWithAnEmptyBufferWaitsForTheFirstRequest() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        Empty<Int, Never>().buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Buffer")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .completion(.finished)])
    }

    /// With the buffer drained by demand returned from `receive(_:)` or requested from inside it, the completion
    /// waits once the subscriber's demand is zero (as Apple's) and arrives at its next request.
    func testFinishArrivesOnceDrainedWhicheverWayDemandArrived() {
        for reentrant in [false, true] {
            for prefetch in [Publishers.PrefetchStrategy.keepFull, .byRequest] {
                let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, value in
                    guard value < 99 else { return .none }
                    if reentrant {
                        recorder.request(.max(1))
                        return .none
                    }
                    return .max(1)
                }
                (0..<100).publisher.buffer(size: 10, prefetch: prefetch, whenFull: .dropOldest).subscribe(recorder)
                XCTAssertEqual(recorder.completions, [], "reentrant: \(reentrant), \(prefetch)")
                recorder.request(.max(1))
                XCTAssertEqual(recorder.completions, [.finished], "reentrant: \(reentrant), \(prefetch)")
            }
        }
    }

    func testUpstreamFailureDiscardsBufferedValuesAndIsNotCancelled() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        upstream.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(3)))
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Buffer"), .completion(.failure(TestError(3)))])
        XCTAssertEqual(upstream.history, [.request(.max(5))])
    }

    func testCancelCancelsUpstreamOnceAndStopsDelivery() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.buffer(size: 5, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        recorder.request(.max(1))
        upstream.send(2)
        XCTAssertEqual(recorder.events, [.subscription("Buffer")])
        XCTAssertEqual(upstream.history, [.request(.max(5)), .cancel])
    }

    func testDemandReturnedFromReceiveCountsForTheNextValues() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, _ in .max(1) }
        upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).subscribe(recorder)
        upstream.send(1)
        upstream.send(2)
        XCTAssertEqual(recorder.values, [1, 2])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testDescriptionAndMirror() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(recorder)
        upstream.send(4)
        let subscription = recorder.subscription!
        XCTAssertEqual(String(describing: subscription), "Buffer")
        let children = Mirror(reflecting: subscription).children.map { "\($0.label!): \($0.value)" }
        XCTAssertEqual(children.count, 4)
        XCTAssertEqual(children[0], "values: [4]")
        XCTAssertEqual(children[2], "downstreamDemand: max(0)")
        XCTAssertEqual(children[3], "terminal: nil")
    }

    func testReentrantRequestsDrainALongBufferWithoutRecursion() {
        for prefetch in [Publishers.PrefetchStrategy.keepFull, .byRequest] {
            let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
                recorder.request(.max(1))
                return .none
            }
            (0..<5_000).publisher.buffer(size: 10, prefetch: prefetch, whenFull: .dropNewest).subscribe(recorder)
            // `.byRequest` asks for everything before the subscriber is subscribed: the buffer keeps what fits.
            XCTAssertEqual(recorder.values, Array(0..<(prefetch == .keepFull ? 5_000 : 10)), "\(prefetch)")
            XCTAssertEqual(recorder.completions, [.finished])
        }
    }

    func testPrefetchStrategyIsHashable() {
        XCTAssertEqual(Set([Publishers.PrefetchStrategy.keepFull, .keepFull, .byRequest]).count, 2)
    }

    func testReleasesTheSubscriberAfterCancelAndAfterCompletion() {
        weak var cancelled: Recorder<Int, Never>?
        weak var completed: Recorder<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let recorder = Recorder<Int, Never>()
            cancelled = recorder
            subject.buffer(size: 2, prefetch: .keepFull, whenFull: .dropOldest).subscribe(recorder)
            subject.send(1)
            recorder.cancel()
        }
        do {
            let recorder = Recorder<Int, Never>()
            completed = recorder
            [1, 2].publisher.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).subscribe(recorder)
            XCTAssertEqual(recorder.completions, [.finished])
        }
        XCTAssertNil(cancelled)
        XCTAssertNil(completed)
    }
}

final class BufferConcurrencyTests: XCTestCase {
    /// Only the subscription callout's own thread gets values inside it: a request that another thread makes while
    /// `receive(subscription:)` runs adds demand, and the value follows once the callout returned (the downstream's
    /// signals stay serialized).
    func testARequestFromAnotherThreadDuringTheSubscriptionCalloutIsServedOnceTheCalloutReturned() {
        let log = LockedBox<[String]>([])
        let requested = DispatchSemaphore(value: 0)
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                log.withLock { $0.append("subscription") }
                // Handed to another thread on purpose: Untangle's subscriptions may be asked from any thread.
                nonisolated(unsafe) let handed = subscription
                Thread {
                    handed.request(.max(2))
                    requested.signal()
                }.start()
                XCTAssertEqual(requested.wait(timeout: .now() + 30), .success, "watchdog: the request returned")
                log.withLock { $0.append("callout returns") }
            },
            receiveValue: { value in
                log.withLock { $0.append("value \(value)") }
                return .none
            },
            receiveCompletion: { completion in log.withLock { $0.append("\(completion)") } })
        [3].publisher.buffer(size: 1, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
        XCTAssertEqual(log.withLock { $0 }, ["subscription", "callout returns", "value 3", "finished"])
    }

    func testUpstreamSendingOnOneThreadWhileAnotherRequestsLosesNothingAndKeepsOrder() {
        for _ in 0..<20 {
            let subject = PassthroughSubject<Int, Never>()
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            let detector = OverlapDetector()
            let wrapped = AnySubscriber<Int, Never>(
                receiveSubscription: { recorder.receive(subscription: $0) },
                receiveValue: { value in detector.around { recorder.receive(value) } },
                receiveCompletion: { recorder.receive(completion: $0) })
            subject.buffer(size: 1_000, prefetch: .keepFull, whenFull: .customError { fatalError("overflow") })
                .subscribe(wrapped)
            runConcurrently(threads: 2) { thread in
                for i in 0..<1_000 {
                    if thread == 0 { subject.send(i) } else { recorder.request(.max(1)) }
                }
            }
            XCTAssertEqual(detector.overlaps, 0)
            XCTAssertEqual(recorder.values, Array(0..<1_000))
        }
    }

    func testExactCountsWhenDemandArrivesOneAtATimeFromFourThreads() {
        for prefetch in [Publishers.PrefetchStrategy.keepFull, .byRequest] {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            (0..<4_000).publisher.buffer(size: 5, prefetch: prefetch, whenFull: .dropNewest).subscribe(recorder)
            runConcurrently(threads: 4) { _ in
                for _ in 0..<1_000 { recorder.request(.max(1)) }
            }
            // `.byRequest` asks for everything before the subscriber is subscribed: the buffer keeps what fits.
            XCTAssertEqual(recorder.values, Array(0..<(prefetch == .keepFull ? 4_000 : 5)), "\(prefetch)")
            // As Apple's, `.finished` needs demand: `.keepFull` used all 4,000 requests on values, so it waits for one
            // more; `.byRequest` delivered 5 values and still has demand.
            XCTAssertEqual(recorder.completions, prefetch == .keepFull ? [] : [.finished], "\(prefetch)")
            recorder.request(.max(1))
            XCTAssertEqual(recorder.completions, [.finished], "\(prefetch)")
        }
    }

    /// Lock inversion: the subscriber takes a user lock that the requesting thread holds while it requests, and
    /// the upstream sends on another thread. No library lock is held across a delivery, so nothing deadlocks.
    func testRequestingWhileHoldingALockTheSubscriberTakesDoesNotDeadlock() {
        let subject = PassthroughSubject<Int, Never>()
        let userLock = NSRecursiveLock()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in
            userLock.lock()
            userLock.unlock()
            return .none
        }
        subject.buffer(size: 10_000, prefetch: .keepFull, whenFull: .dropNewest).subscribe(recorder)
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    subject.send(i)
                } else {
                    userLock.lock()
                    recorder.request(.max(1))
                    userLock.unlock()
                }
            }
        }
        XCTAssertEqual(recorder.values, Array(0..<2_000))
    }

    func testCancelRacingUpstreamAndRequestsIsSafe() {
        for _ in 0..<50 {
            let subject = PassthroughSubject<Int, Never>()
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            subject.buffer(size: 50, prefetch: .keepFull, whenFull: .dropOldest).subscribe(recorder)
            runConcurrently(threads: 3) { thread in
                switch thread {
                case 0: for i in 0..<200 { subject.send(i) }
                case 1: for _ in 0..<100 { recorder.request(.max(1)) }
                default: recorder.cancel()
                }
            }
            let count = recorder.values.count
            subject.send(1)
            recorder.request(.max(1))
            XCTAssertEqual(recorder.values.count, count, "nothing after cancel returned")
            XCTAssertEqual(recorder.completions, [])
        }
    }
}
