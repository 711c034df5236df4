import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class FutureTests: XCTestCase {
    private typealias Events = [Event<Int, TestError>]
    private let success: Events = [.subscription("Future"), .value(42), .completion(.finished)]

    // MARK: Resolution before and after subscription

    func testTheClosureRunsOnceAtInitWithNoLibraryLockHeld() {
        let calls = Counter()
        let locksHeld = LockedBox<Int>(-1)
        let future = Future<Int, TestError> { _ in
            calls.increment()
            locksHeld.withLock { $0 = CalloutCheck.heldByCurrentThread }
        }
        XCTAssertEqual(calls.value, 1)
        XCTAssertEqual(locksHeld.withLock { $0 }, 0)
        future.subscribe(Recorder<Int, TestError>())
        future.subscribe(Recorder<Int, TestError>())
        XCTAssertEqual(calls.value, 1)
    }

    func testPromiseCalledBeforeSubscription() {
        let future = Future<Int, TestError> { promise in promise(.success(42)) }
        let recorder = Recorder<Int, TestError>()
        future.subscribe(recorder)
        XCTAssertEqual(recorder.events, success)
    }

    // Regression (found by the differential check's time mode, seed 437): a resolved Future answered a request made
    // inside `receive(subscription:)` only after that call returned. As Combine's Future and `Just` do, the value
    // and the completion come inside the request.
    func testAResolvedFutureDeliversInsideARequestMadeInReceiveSubscription() {
        for result in [Result<Int, TestError>.success(42), .failure(TestError(7))] {
            let future = Future<Int, TestError> { promise in promise(result) }
            let log = LockedBox<[String]>([])
            future.subscribe(
                AnySubscriber<Int, TestError>(
                    receiveSubscription: { subscription in
                        log.withLock { $0.append("subscription") }
                        subscription.request(.max(1))
                        log.withLock { $0.append("request returned") }
                    },
                    receiveValue: { value in
                        log.withLock { $0.append("value \(value)") }
                        return .none
                    },
                    receiveCompletion: { completion in log.withLock { $0.append("\(completion)") } }))
            switch result {
            case .success:
                XCTAssertEqual(
                    log.withLock { $0 }, ["subscription", "value 42", "finished", "request returned"])
            case .failure:
                XCTAssertEqual(
                    log.withLock { $0 }, ["subscription", "failure(TestError(7))", "request returned"])
            }
        }
    }

    // What the late delivery changed in a chain: `throttle` asks its upstream for values before its own subscriber
    // asks, and drops what arrives meanwhile, as it does for `Just`; a resolved Future's value used to slip through.
    func testAResolvedFutureUnderThrottleBehavesAsJust() {
        let future = Future<Int, Never> { $0(.success(2)) }.eventsThroughThrottle()
        XCTAssertEqual(future, Just(2).eventsThroughThrottle())
        XCTAssertEqual(future, [.subscription("Throttle"), .completion(.finished)])
    }

    func testPromiseCalledAfterSubscription() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let recorder = Recorder<Int, TestError>()
        future.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Future")])
        box.fulfil(.success(42))
        XCTAssertEqual(recorder.events, success)
    }

    func testPromiseCalledFromAnotherThread() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let finished = expectation(description: "finished")
        let values = LockedBox<[Int]>([])
        let cancellable = future.sink(
            receiveCompletion: { completion in
                XCTAssertEqual(completion, .finished)
                finished.fulfill()
            },
            receiveValue: { value in values.withLock { $0.append(value) } })
        Thread { box.fulfil(.success(42)) }.start()
        wait(for: [finished], timeout: 30)
        XCTAssertEqual(values.withLock { $0 }, [42])
        cancellable.cancel()
    }

    func testSecondPromiseCallIsIgnored() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let early = Recorder<Int, TestError>()
        future.subscribe(early)
        box.fulfil(.success(42))
        box.fulfil(.success(43))
        box.fulfil(.failure(TestError()))
        let late = Recorder<Int, TestError>()
        future.subscribe(late)
        XCTAssertEqual(early.events, success)
        XCTAssertEqual(late.events, success)
    }

    func testSecondPromiseCallInsideTheClosureIsIgnored() {
        let future = Future<Int, TestError> { promise in
            promise(.failure(TestError(1)))
            promise(.success(42))
        }
        let recorder = Recorder<Int, TestError>()
        future.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Future"), .completion(.failure(TestError(1)))])
    }

    // MARK: Demand

    func testFailureIsDeliveredWithoutDemand() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let before = Recorder<Int, TestError>(initialDemand: nil)
        future.subscribe(before)
        box.fulfil(.failure(TestError(5)))
        let after = Recorder<Int, TestError>(initialDemand: nil)
        future.subscribe(after)
        XCTAssertEqual(before.events, [.subscription("Future"), .completion(.failure(TestError(5)))])
        XCTAssertEqual(after.events, before.events)
    }

    // OpenCombine/OpenCombine f04053e: a Future resolved after the subscription delivered without waiting for demand.
    func testValueWaitsForDemandWhenResolvedAfterSubscription() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        future.subscribe(recorder)
        box.fulfil(.success(42))
        XCTAssertEqual(recorder.events, [.subscription("Future")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, success)
    }

    func testValueWaitsForDemandWhenResolvedBeforeSubscription() {
        let future = Future<Int, TestError> { promise in promise(.success(42)) }
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        future.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Future")])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, success)
    }

    func testDemandOfOneAndUnlimited() {
        for demand in [Subscribers.Demand.max(1), .unlimited] {
            let box = PromiseBox<Int, TestError>()
            let future = box.makeFuture()
            let recorder = Recorder<Int, TestError>(initialDemand: demand)
            future.subscribe(recorder)
            box.fulfil(.success(42))
            XCTAssertEqual(recorder.events, success, "\(demand)")
        }
    }

    func testDemandReturnedFromReceiveAndRequestsAfterCompletionChangeNothing() {
        let future = Future<Int, TestError> { promise in promise(.success(42)) }
        let recorder = Recorder<Int, TestError>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                recorder.request(.max(1))
                return .max(1)
            })
        future.subscribe(recorder)
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, success)
    }

    func testRequestInsideReceiveSubscriptionOfAResolvedFutureDelivers() {
        let future = Future<Int, TestError> { promise in promise(.success(42)) }
        let recorder = Recorder<Int, TestError>(
            initialDemand: nil, onSubscription: { _, subscription in subscription.request(.max(1)) })
        future.subscribe(recorder)
        XCTAssertEqual(recorder.events, success)
    }

    func testPromiseFulfilledInsideReceiveSubscriptionIsDeliveredOnceDemandArrives() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        // The recorder requests `.unlimited` right after `onSubscription` returns, still inside receive(subscription:).
        let recorder = Recorder<Int, TestError>(
            initialDemand: .unlimited, onSubscription: { _, _ in box.fulfil(.success(42)) })
        future.subscribe(recorder)
        XCTAssertEqual(recorder.events, success)
    }

    func testCancelInsideReceiveOfALateResolutionSuppressesFinished() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let recorder = Recorder<Int, TestError>(
            initialDemand: .unlimited,
            onValue: { recorder, _ in
                recorder.cancel()
                return .none
            })
        future.subscribe(recorder)
        box.fulfil(.success(42))
        XCTAssertEqual(recorder.events, [.subscription("Future"), .value(42)])
    }

    // MARK: Several subscribers

    func testMultipleSubscribersEachGetTheResultOnce() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let withDemand = Recorder<Int, TestError>()
        let withoutDemand = Recorder<Int, TestError>(initialDemand: nil)
        future.subscribe(withDemand)
        future.subscribe(withoutDemand)
        box.fulfil(.success(42))
        let late = Recorder<Int, TestError>()
        future.subscribe(late)
        withoutDemand.request(.max(1))
        withoutDemand.request(.max(1))
        XCTAssertEqual(withDemand.events, success)
        XCTAssertEqual(withoutDemand.events, success)
        XCTAssertEqual(late.events, success)
    }

    // MARK: Cancellation

    func testCancelBeforeResolutionMeansNothingIsDelivered() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let recorder = Recorder<Int, TestError>()
        future.subscribe(recorder)
        recorder.cancel()
        box.fulfil(.success(42))
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Future")])
    }

    func testCancelAfterResolutionBeforeDemandMeansNothingIsDelivered() {
        let future = Future<Int, TestError> { promise in promise(.success(42)) }
        let recorder = Recorder<Int, TestError>(initialDemand: nil)
        future.subscribe(recorder)
        recorder.cancel()
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("Future")])
    }

    func testCancelInsideReceiveSuppressesFinished() {
        let future = Future<Int, TestError> { promise in promise(.success(42)) }
        let recorder = Recorder<Int, TestError>(
            initialDemand: .unlimited,
            onValue: { recorder, _ in
                recorder.cancel()
                return .none
            })
        future.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Future"), .value(42)])
    }

    func testCancellingOneSubscriberDoesNotAffectTheOthers() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        let cancelled = Recorder<Int, TestError>()
        let kept = Recorder<Int, TestError>()
        future.subscribe(cancelled)
        future.subscribe(kept)
        cancelled.cancel()
        box.fulfil(.success(42))
        XCTAssertEqual(cancelled.events, [.subscription("Future")])
        XCTAssertEqual(kept.events, success)
    }

    // MARK: Memory

    func testSubscriptionReleasesSubscriberAfterCompletion() {
        let future = Future<Int, TestError> { promise in promise(.success(1)) }
        assertSubscriptionReleasesSubscriber(future)
        assertSubscriptionReleasesSubscriber(Future<Int, TestError> { promise in promise(.failure(TestError())) })
    }

    func testSubscriptionReleasesSubscriberAfterCompletionOnLateResolution() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        assertSubscriptionReleasesSubscriber(future) { _ in box.fulfil(.success(1)) }
    }

    func testCancelBeforeResolutionReleasesSubscriber() {
        let box = PromiseBox<Int, TestError>()
        let future = box.makeFuture()
        assertSubscriptionReleasesSubscriber(future) { $0.cancel() }
        withExtendedLifetime(future) {}
    }

    func testCancelAfterResolutionWithoutDemandReleasesSubscriber() {
        let future = Future<Int, TestError> { promise in promise(.success(1)) }
        assertSubscriptionReleasesSubscriber(future, initialDemand: nil) { $0.cancel() }
    }
}

final class FutureConcurrencyTests: XCTestCase {
    func testPromiseRacingSubscribersFromEightThreadsDeliversExactlyOnceToEach() {
        for _ in 0..<10 {
            let box = PromiseBox<Int, TestError>()
            let future = box.makeFuture()
            let recorders = LockedBox<[Recorder<Int, TestError>]>([])
            runConcurrently(threads: 8) { index in
                for round in 0..<50 {
                    if index == 0 && round == 25 { box.fulfil(.success(42)) }
                    let recorder = Recorder<Int, TestError>(initialDemand: index.isMultiple(of: 2) ? .unlimited : nil)
                    future.subscribe(recorder)
                    if !index.isMultiple(of: 2) { recorder.request(.max(1)) }
                    recorders.withLock { $0.append(recorder) }
                }
            }
            let all = recorders.withLock { $0 }
            XCTAssertEqual(all.count, 400)
            for recorder in all {
                XCTAssertEqual(recorder.events, [.subscription("Future"), .value(42), .completion(.finished)])
            }
        }
    }

    func testConcurrentPromisesResolveOnceWithOneOfTheResults() {
        for _ in 0..<20 {
            let box = PromiseBox<Int, TestError>()
            let future = box.makeFuture()
            let recorder = Recorder<Int, TestError>()
            future.subscribe(recorder)
            runConcurrently(threads: 8) { index in box.fulfil(.success(index)) }
            let values = recorder.values
            XCTAssertEqual(values.count, 1)
            XCTAssertEqual(recorder.completions, [.finished])
            let late = Recorder<Int, TestError>()
            future.subscribe(late)
            XCTAssertEqual(late.values, values, "a later subscriber saw a different result")
        }
    }

    func testRequestsRacingResolutionDeliverExactlyOnce() {
        for _ in 0..<20 {
            let box = PromiseBox<Int, TestError>()
            let future = box.makeFuture()
            let recorder = Recorder<Int, TestError>(initialDemand: nil)
            future.subscribe(recorder)
            runConcurrently(threads: 8) { index in
                if index == 0 { box.fulfil(.success(42)) } else { recorder.request(.max(1)) }
            }
            XCTAssertEqual(recorder.events, [.subscription("Future"), .value(42), .completion(.finished)])
        }
    }

    func testCancelRacingResolutionDeliversAllOrNothingAfterTheValue() {
        for _ in 0..<20 {
            let box = PromiseBox<Int, TestError>()
            let future = box.makeFuture()
            let recorder = Recorder<Int, TestError>()
            future.subscribe(recorder)
            runConcurrently(threads: 2) { index in
                if index == 0 { box.fulfil(.success(42)) } else { recorder.cancel() }
            }
            let events = recorder.events
            XCTAssertTrue(
                events == [.subscription("Future")] || events == [.subscription("Future"), .value(42)]
                    || events == [.subscription("Future"), .value(42), .completion(.finished)],
                "\(events)")
        }
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension FutureTests {
    // OpenCombine/OpenCombine f04053e: a Future's subscription kept the subscriber, and the subscriber the future,
    // after the stream ended (by a cancel, a value or a failure).
    func testNothingIsKeptAliveOnceTheStreamEndsWhateverEndedIt() {
        typealias Ending = (String, (PromiseBox<Int, TestError>, Recorder<Int, TestError>) -> Void, Events)
        let endings: [Ending] = [
            ("cancel", { _, recorder in recorder.cancel() }, [.subscription("Future")]),
            (
                "success", { box, _ in box.fulfil(.success(1)) },
                [.subscription("Future"), .value(1), .completion(.finished)]
            ),
            (
                "failure", { box, _ in box.fulfil(.failure(TestError(2))) },
                [.subscription("Future"), .completion(.failure(TestError(2)))]
            ),
        ]
        for (name, end, expected) in endings {
            weak var weakFuture: Future<Int, TestError>?
            weak var weakRecorder: Recorder<Int, TestError>?
            var events: [Event<Int, TestError>] = []
            do {
                let box = PromiseBox<Int, TestError>()
                let future = box.makeFuture()
                let recorder = Recorder<Int, TestError>()
                weakFuture = future
                weakRecorder = recorder
                future.subscribe(recorder)
                end(box, recorder)
                events = recorder.events
            }
            XCTAssertEqual(events, expected, name)
            XCTAssertNil(weakRecorder, "\(name): the subscriber was kept")
            XCTAssertNil(weakFuture, "\(name): the future was kept")
        }
    }
}
