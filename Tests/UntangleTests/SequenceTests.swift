import Foundation
import Untangle
import UntangleSync
import XCTest

final class SequenceTests: XCTestCase {
    private typealias Events = [Event<Int, Never>]

    // MARK: Demand

    func testWithoutDemandOnlyTheSubscriptionArrivesThenRequestsDeliverExactlyThatMany() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        [1, 2, 3, 4].publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3, 4]")])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3, 4]"), .value(1), .value(2)])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3, 4]"), .value(1), .value(2), .value(3)])
        // The last element is followed at once by `.finished`, although the demand is then used up.
        recorder.request(.max(1))
        XCTAssertEqual(
            recorder.events,
            [.subscription("[1, 2, 3, 4]"), .value(1), .value(2), .value(3), .value(4), .completion(.finished)])
    }

    func testDemandOfOneDeliversOneValue() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1)])
    }

    func testFinishedFollowsTheLastElementWithZeroDemandLeft() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(3))
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(
            recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testUnlimitedDemandDeliversEverythingThenFinished() {
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(
            recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testDemandReturnedFromReceiveIsAdded() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(
            recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testDemandReturnedFromReceiveAccumulatesWithRequestedDemand() {
        // Requested 1, then each value returns 1 only for the first value: 1 + 1 = 2 values in all.
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1), onValue: { _, value in value == 1 ? .max(1) : .none })
        [1, 2, 3, 4].publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3, 4]"), .value(1), .value(2)])
        recorder.request(.max(5))
        XCTAssertEqual(recorder.values, [1, 2, 3, 4])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testEmptySequenceFinishesAtSubscriptionWithSubscriptionsEmpty() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        [Int]().publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("Empty"), .completion(.finished)])
        XCTAssertEqual(recorder.subscription?.combineIdentifier, Subscriptions.empty.combineIdentifier)
    }

    func testFailureTypedSequenceFinishesNormally() {
        let recorder = Recorder<Int, TestError>()
        Publishers.Sequence<[Int], TestError>(sequence: [5]).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[5]"), .value(5), .completion(.finished)])
    }

    func testEachSubscriptionIteratesAfresh() {
        let publisher = [1, 2].publisher
        let first = Recorder<Int, Never>()
        let second = Recorder<Int, Never>(initialDemand: .max(1))
        publisher.subscribe(first)
        publisher.subscribe(second)
        XCTAssertEqual(first.values, [1, 2])
        XCTAssertEqual(second.events, [.subscription("[1, 2]"), .value(1)])
    }

    // MARK: Cancellation

    func testCancelBeforeAnyRequestDeliversNothing() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        [1, 2, 3].publisher.subscribe(recorder)
        recorder.cancel()
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]")])
    }

    // OpenCombine/OpenCombine bdd703a: a cancel() from inside receive(_:) did not stop the sequence.
    func testCancelInsideReceiveStopsDeliveryAtOnce() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .unlimited,
            onValue: { recorder, value in
                if value == 2 { recorder.cancel() }
                return .none
            })
        [1, 2, 3, 4].publisher.subscribe(recorder)
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3, 4]"), .value(1), .value(2)])
    }

    func testCancelInsideReceiveOfTheLastElementSuppressesFinished() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .unlimited,
            onValue: { recorder, value in
                if value == 3 { recorder.cancel() }
                return .none
            })
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3)])
    }

    func testCancelInsideReceiveSubscriptionDeliversNothing() {
        let recorder = Recorder<Int, Never>(
            initialDemand: .unlimited, onSubscription: { _, subscription in subscription.cancel() })
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]")])
    }

    func testCancelAfterEmissionDeliversNothingMore() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        [1, 2, 3].publisher.subscribe(recorder)
        recorder.cancel()
        recorder.request(.max(5))
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1)])
    }

    func testRequestAndCancelAfterCompletionDoNothing() {
        let recorder = Recorder<Int, Never>()
        [1].publisher.subscribe(recorder)
        recorder.request(.max(1))
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("[1]"), .value(1), .completion(.finished)])
    }

    // MARK: Reentrancy

    // cx-org/CombineX 363ec47: a request from inside receive(_:) started a second, overlapping delivery.
    func testReentrantRequestFromReceiveDeliversOneValueAtATimeWithoutNesting() {
        let gauge = OverlapGauge()
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                gauge.enter()
                recorder.request(.max(1))
                gauge.leave()
                return .none
            })
        (1...5).publisher.subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [
                .subscription("1...5"), .value(1), .value(2), .value(3), .value(4), .value(5),
                .completion(.finished),
            ])
        XCTAssertEqual(gauge.maximum, 1, "a reentrant request delivered the next value nested inside receive")
    }

    func testRequestInsideReceiveSubscriptionDeliversBeforeSubscribeReturns() {
        let recorder = Recorder<Int, Never>(
            initialDemand: nil, onSubscription: { _, subscription in subscription.request(.max(2)) })
        [1, 2, 3].publisher.subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2, 3]"), .value(1), .value(2)])
    }

    func testMillionElementsRequestedOneByOneFromInsideReceiveDoNotGrowTheStack() {
        let count = 1_000_000
        let gauge = OverlapGauge()
        let recorder = Recorder<Int, Never>(
            initialDemand: .max(1),
            onValue: { recorder, _ in
                gauge.enter()
                recorder.request(.max(1))
                gauge.leave()
                return .none
            })
        (0..<count).publisher.subscribe(recorder)
        let events = recorder.events
        XCTAssertEqual(events.count, count + 2)
        XCTAssertEqual(events.first, .subscription("0..<1000000"))
        XCTAssertEqual(events.last, .completion(.finished))
        XCTAssertEqual(recorder.values, Array(0..<count))
        XCTAssertEqual(gauge.maximum, 1)
    }

    // MARK: The iterator

    func testTheIteratorRunsWithNoLibraryLockHeld() {
        let locksHeld = LockedBox<[Int]>([])
        let lazy = [1, 2, 3].lazy.map { value -> Int in
            locksHeld.withLock { $0.append(CalloutCheck.heldByCurrentThread) }
            return value * 10
        }
        let recorder = Recorder<Int, Never>()
        lazy.publisher.subscribe(recorder)
        XCTAssertEqual(recorder.values, [10, 20, 30])
        XCTAssertEqual(locksHeld.withLock { $0 }, [0, 0, 0])
    }

    // OpenCombine/OpenCombine 816426b: the iterator was advanced twice per element, skipping elements.
    func testASingleElementIsFetchedAheadAtMost() {
        // The element after the one delivered is fetched ahead (so `.finished` can follow the last one at once), but
        // no further: with demand 1, at most two elements are pulled from the iterator.
        let pulled = Counter()
        let lazy = (1...100).lazy.map { value -> Int in
            pulled.increment()
            return value
        }
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        lazy.publisher.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        XCTAssertLessThanOrEqual(pulled.value, 2)
    }

    // MARK: Memory

    func testSubscriptionReleasesSubscriberAfterCompletion() {
        assertSubscriptionReleasesSubscriber([1, 2, 3].publisher)
    }

    func testSubscriptionReleasesSubscriberAfterCancel() {
        assertSubscriptionReleasesSubscriber([1, 2, 3].publisher, initialDemand: .max(1)) { $0.cancel() }
    }

    func testSubscriptionReleasesSubscriberAfterCancelInsideReceive() {
        weak var weakRecorder: Recorder<Int, Never>?
        var subscription: Subscription?
        do {
            let recorder = Recorder<Int, Never>(
                initialDemand: .unlimited,
                onValue: { recorder, _ in
                    recorder.cancel()
                    return .none
                })
            weakRecorder = recorder
            [1, 2, 3].publisher.subscribe(recorder)
            subscription = recorder.subscription
        }
        XCTAssertNotNil(subscription)
        XCTAssertNil(weakRecorder)
    }

    func testSubscriptionDescribesAndReflectsTheSequenceUntilItEnds() throws {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        (1...3).publisher.subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertEqual(String(describing: subscription), "1...3")
        XCTAssertEqual((subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "1...3")
        let running = Mirror(reflecting: subscription).children.map { "\($0.label ?? "-"): \($0.value)" }
        XCTAssertEqual(running, ["sequence: 1...3"])
        recorder.request(.unlimited)
        XCTAssertEqual(String(describing: subscription), "Sequence")
        let ended = Mirror(reflecting: subscription).children.map { "\($0.label ?? "-"): \($0.value)" }
        XCTAssertEqual(ended, ["sequence: []"])
    }

    func testCancelEndsTheDescriptionToo() throws {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        [1, 2].publisher.subscribe(recorder)
        recorder.cancel()
        XCTAssertEqual(String(describing: try XCTUnwrap(recorder.subscription)), "Sequence")
    }

    // Regression: `request(.none)` stopped the program; Combine's sequence ignores it.
    func testRequestNoneIsIgnored() {
        let recorder = Recorder<Int, Never>(
            initialDemand: nil,
            onSubscription: { _, subscription in
                subscription.request(.none)
                subscription.request(.max(1))
            })
        [1, 2].publisher.subscribe(recorder)
        recorder.subscription?.request(.none)
        XCTAssertEqual(recorder.events, [.subscription("[1, 2]"), .value(1)])
    }

    func testTheFirstElementIsFetchedBeforeTheSubscriptionIsSent() {
        let fetched = LockedBox(0)
        let counting = (0..<3).lazy.map { value -> Int in
            fetched.withLock { $0 += 1 }
            return value
        }
        let seenAtSubscription = LockedBox(-1)
        let recorder = Recorder<Int, Never>(
            initialDemand: nil, onSubscription: { _, _ in seenAtSubscription.withLock { $0 = fetched.withLock { $0 } } }
        )
        counting.publisher.subscribe(recorder)
        XCTAssertEqual(seenAtSubscription.withLock { $0 }, 1)
    }

    func testEquatable() {
        XCTAssertEqual([1, 2].publisher, Publishers.Sequence<[Int], Never>(sequence: [1, 2]))
        XCTAssertNotEqual([1, 2].publisher, [2, 1].publisher)
        XCTAssertEqual([1, 2].publisher.sequence, [1, 2])
    }
}

final class SequenceConcurrencyTests: XCTestCase {
    // The description reads the sequence under the lock and describes it outside; the emitter ends it concurrently.
    func testDescriptionReadWhileAnotherThreadEmitsAndFinishes() {
        for _ in 0..<50 {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            (0..<2_000).publisher.subscribe(recorder)
            runConcurrently(threads: 2) { index in
                if index == 0 {
                    recorder.request(.unlimited)
                } else {
                    for _ in 0..<20 {
                        let text = String(describing: recorder.subscription!)
                        XCTAssertTrue(text == "0..<2000" || text == "Sequence", text)
                    }
                }
            }
            XCTAssertEqual(recorder.values.count, 2_000)
            XCTAssertEqual(String(describing: recorder.subscription!), "Sequence")
        }
    }

    func testRequestsFromEightThreadsDeliverExactlyTheRequestedValuesInOrderWithoutOverlap() {
        let gauge = OverlapGauge()
        let recorder = Recorder<Int, Never>(
            initialDemand: nil,
            onValue: { _, _ in
                gauge.enter()
                gauge.leave()
                return .none
            })
        (0..<100_000).publisher.subscribe(recorder)
        let requestsPerThread = 500
        runConcurrently(threads: 8) { _ in
            for _ in 0..<requestsPerThread { recorder.request(.max(1)) }
        }
        XCTAssertEqual(recorder.values, Array(0..<(8 * requestsPerThread)))
        XCTAssertEqual(recorder.completions, [])
        XCTAssertEqual(gauge.maximum, 1, "two threads delivered at once")
    }

    func testRequestsFromEightThreadsFinishExactlyOnce() {
        for _ in 0..<20 {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            (0..<800).publisher.subscribe(recorder)
            runConcurrently(threads: 8) { _ in
                for _ in 0..<100 { recorder.request(.max(1)) }
            }
            XCTAssertEqual(recorder.values, Array(0..<800))
            XCTAssertEqual(recorder.completions, [.finished])
        }
    }

    func testCancelRacingRequestsDeliversAPrefixAndNoCompletion() {
        for _ in 0..<20 {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            (0..<10_000).publisher.subscribe(recorder)
            runConcurrently(threads: 4) { index in
                if index == 0 {
                    recorder.cancel()
                } else {
                    for _ in 0..<100 { recorder.request(.max(1)) }
                }
            }
            let values = recorder.values
            XCTAssertEqual(values, Array(0..<values.count))
            XCTAssertEqual(recorder.completions, [])
            recorder.request(.max(1))
            XCTAssertEqual(recorder.values.count, values.count, "a value arrived after cancel")
        }
    }

    /// Subscribes to `0..<count` whose iterator blocks in user code when it fetches `blockingAt` (the read-ahead),
    /// requests `demand` on another thread, cancels while the iterator is blocked, then lets it go on. Returns the
    /// events as they stood when `cancel()` returned and after the requesting thread finished.
    private func cancelWhileFetchingAhead(
        count: Int, blockingAt: Int, demand: Subscribers.Demand
    ) -> (subscription: Event<Int, Never>, atCancel: [Event<Int, Never>], after: [Event<Int, Never>]) {
        let fetchingAhead = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let lazy = (0..<count).lazy.map { value -> Int in
            if value == blockingAt {
                fetchingAhead.signal()
                _ = release.wait(timeout: .now() + 30)
            }
            return value
        }
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        lazy.publisher.subscribe(recorder)
        let done = DispatchSemaphore(value: 0)
        Thread {
            recorder.request(demand)
            done.signal()
        }.start()
        XCTAssertEqual(fetchingAhead.wait(timeout: .now() + 30), .success)
        recorder.cancel()
        let atCancel = recorder.events
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        // A sequence's subscription describes itself as the sequence, as in Combine.
        return (.subscription(String(describing: lazy)), atCancel, recorder.events)
    }

    /// Regression: the source used to fetch the element after the one it was about to deliver (user code, possibly
    /// slow) between taking demand and delivering, so a value could arrive long after a `cancel()` on another thread
    /// had returned. Now the delivery comes first and the read-ahead after it.
    func testNoValueIsDeliveredAfterCancelReturnsWhileTheIteratorRunsUserCode() throws {
        let events = cancelWhileFetchingAhead(count: 3, blockingAt: 1, demand: .max(2))
        XCTAssertEqual(events.atCancel, [events.subscription, .value(0)])
        XCTAssertEqual(events.after, events.atCancel, "a value arrived after cancel() returned")
    }

    /// The same with unlimited demand, where the loop no longer takes the lock per element and notices the cancel
    /// through the cancel word alone: the element being fetched ahead when `cancel()` returns is never delivered.
    func testUnlimitedDemandStopsAtTheCancelWordWhileTheIteratorRunsUserCode() throws {
        let events = cancelWhileFetchingAhead(count: 1_000, blockingAt: 5, demand: .unlimited)
        XCTAssertEqual(events.atCancel, [events.subscription] + (0..<5).map { .value($0) })
        XCTAssertEqual(events.after, events.atCancel, "a value arrived after cancel() returned")
    }

    /// Unlimited demand streamed from one thread while another cancels: a prefix in order, no completion, and
    /// nothing after cancel() returned.
    func testCancelRacingAnUnlimitedStreamDeliversAPrefixAndNoCompletion() {
        for _ in 0..<20 {
            let recorder = Recorder<Int, Never>(initialDemand: nil)
            (0..<100_000).publisher.subscribe(recorder)
            runConcurrently(threads: 2) { index in
                if index == 0 { recorder.request(.unlimited) } else { recorder.cancel() }
            }
            let values = recorder.values
            XCTAssertEqual(values, Array(0..<values.count))
            if values.count < 100_000 {
                XCTAssertEqual(recorder.completions, [], "cancelled before the end: no completion")
            }
            recorder.request(.max(1))
            XCTAssertEqual(recorder.values.count, values.count, "a value arrived after cancel")
        }
    }
}
