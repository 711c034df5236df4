import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class FlatMapTests: XCTestCase {
    func testFlatMapOfJustDeliversEveryValueInOrderAndFinishes() {
        let recorder = Recorder<Int, Never>()
        [1, 2, 3].publisher.flatMap { Just($0 * 10) }.subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("FlatMap"), .value(10), .value(20), .value(30), .completion(.finished)])
    }

    func testEveryOverloadHasApplesReturnType() {
        let upstream = ManualPublisher<Int, TestError>()
        let sameFailure: Publishers.FlatMap<Fail<Int, TestError>, ManualPublisher<Int, TestError>> =
            upstream.flatMap { _ in Fail<Int, TestError>(error: TestError(3)) }
        let neverInner:
            Publishers.FlatMap<Publishers.SetFailureType<Just<Int>, TestError>, ManualPublisher<Int, TestError>> =
                upstream.flatMap { Just($0) }
        let neverUpstream:
            Publishers.FlatMap<
                Fail<Int, TestError>, Publishers.SetFailureType<Publishers.Sequence<[Int], Never>, TestError>
            > =
                [1].publisher.flatMap { _ in Fail<Int, TestError>(error: TestError(4)) }
        let bothNever: Publishers.FlatMap<Just<Int>, Publishers.Sequence<[Int], Never>> = [1].publisher.flatMap {
            Just($0)
        }

        let failing = Recorder<Int, TestError>()
        neverUpstream.subscribe(failing)
        XCTAssertEqual(failing.events, [.subscription("FlatMap"), .completion(.failure(TestError(4)))])

        let never = Recorder<Int, Never>()
        bothNever.subscribe(never)
        XCTAssertEqual(never.events, [.subscription("FlatMap"), .value(1), .completion(.finished)])

        let typed = Recorder<Int, TestError>()
        neverInner.subscribe(typed)
        upstream.send(7)
        upstream.send(completion: .finished)
        XCTAssertEqual(typed.events, [.subscription("FlatMap"), .value(7), .completion(.finished)])

        let other = ManualPublisher<Int, TestError>()
        let failed = Recorder<Int, TestError>()
        Publishers.FlatMap(upstream: other, maxPublishers: sameFailure.maxPublishers, transform: sameFailure.transform)
            .subscribe(failed)
        other.send(1)
        XCTAssertEqual(failed.events, [.subscription("FlatMap"), .completion(.failure(TestError(3)))])
        XCTAssertEqual(other.history, [.request(.unlimited), .cancel])
    }

    func testMaxPublishersBoundsUpstreamDemandAndAsksOneMorePerFinishedInner() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<3).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: .unlimited)
        upstream.flatMap(maxPublishers: .max(2)) { inners[$0] }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        upstream.send(0)
        upstream.send(1)
        XCTAssertEqual(inners[0].history, [.request(.unlimited)])
        XCTAssertEqual(inners[1].history, [.request(.unlimited)])
        inners[0].send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(1))])
        upstream.send(2)
        inners[2].send(5)
        XCTAssertEqual(recorder.values, [5])
    }

    func testZeroMaxPublishersAsksUpstreamForNothingLikeCombine() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.flatMap(maxPublishers: .max(0)) { Just($0) }.subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(upstream.history, [.request(.none)], "Combine passes maxPublishers on as it is")
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .completion(.finished)])
    }

    func testDownstreamHasItsSubscriptionBeforeTheUpstreamIsSubscribed() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        var eventsWhenUpstreamSubscribed: [Event<Int, Never>]?
        Deferred { () -> Empty<Int, Never> in
            eventsWhenUpstreamSubscribed = recorder.events
            return Empty()
        }
        .flatMap { Just($0) }
        .subscribe(recorder)
        XCTAssertEqual(eventsWhenUpstreamSubscribed, [.subscription("FlatMap")])
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .completion(.finished)])
    }

    func testCompletionBeforeTheUpstreamSubscriptionFinishesTheDownstream() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Int, Never>()
        upstream.flatMap { Just($0) }.subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .completion(.finished)])
    }

    func testEachInnerIsAskedForOneValueAndDownstreamRequestsAreNotForwarded() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        upstream.send(1)
        recorder.request(.max(3))
        XCTAssertEqual(inners[0].history, [.request(.max(1))])
        XCTAssertEqual(inners[1].history, [.request(.max(1))])
    }

    func testAValueMeetingDemandGivesItsInnerOneMoreAndAValueBeyondItWaits() {
        let upstream = ManualPublisher<Int, Never>()
        let inner = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(2))
        upstream.flatMap { _ in inner }.subscribe(recorder)
        upstream.send(0)
        XCTAssertEqual(inner.send(10), .max(1))
        XCTAssertEqual(inner.send(11), .max(1))
        XCTAssertEqual(inner.send(12), .none, "no demand left: buffered")
        XCTAssertEqual(recorder.values, [10, 11])
        XCTAssertEqual(inner.history, [.request(.max(1))])
    }

    func testABufferedValueAsksItsInnerForOneMoreWhenItIsDelivered() {
        let upstream = ManualPublisher<Int, Never>()
        let inner = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.flatMap { _ in inner }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "upstream is asked up front, like Combine")
        upstream.send(0)
        XCTAssertEqual(inner.history, [.request(.max(1))], "asked for one value even without downstream demand")
        XCTAssertEqual(inner.send(4), .none)
        XCTAssertEqual(recorder.values, [])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [4])
        XCTAssertEqual(inner.history, [.request(.max(1)), .request(.max(1))])
    }

    func testUnlimitedRequestDeliversTheBufferThenAsksEveryInnerForUnlimited() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        upstream.send(1)
        XCTAssertEqual(inners[0].send(1), .max(1))
        XCTAssertEqual(inners[0].send(2), .none)
        XCTAssertEqual(inners[1].send(3), .none)
        recorder.request(.unlimited)
        XCTAssertEqual(recorder.values, [1, 2, 3])
        XCTAssertEqual(inners[0].history, [.request(.max(1)), .request(.unlimited)])
        XCTAssertEqual(inners[1].history, [.request(.max(1)), .request(.unlimited)])
        XCTAssertEqual(inners[1].send(4), .none, "unlimited: nothing to give back")
        upstream.send(0)
        XCTAssertEqual(inners[0].history, [.request(.max(1)), .request(.unlimited), .request(.unlimited)])
        XCTAssertEqual(recorder.values, [1, 2, 3, 4])
    }

    /// Regression: a value an inner sends while the buffer drains (here from inside the downstream's `receive`)
    /// joins the end of the buffer instead of overtaking the value its own inner sent before it.
    func testAValueSentWhileTheBufferDrainsWaitsBehindTheValuesBeforeIt() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, value in
            if value == 1 {
                XCTAssertEqual(inners[1].send(21), .none, "buffered behind 20")
            }
            return .none
        }
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        upstream.send(1)
        XCTAssertEqual(inners[0].send(1), .none)
        XCTAssertEqual(inners[1].send(20), .none)
        recorder.request(.max(3))
        XCTAssertEqual(recorder.values, [1, 20, 21])
        XCTAssertEqual(inners[0].history, [.request(.max(1)), .request(.max(1))])
        XCTAssertEqual(inners[1].history, [.request(.max(1)), .request(.max(1)), .request(.max(1))])
    }

    /// Regression: demand returned from `receive(_:)` must count, or a subscriber that asks for one more value at a
    /// time stalls after the first; and it must drain what waits.
    func testDemandReturnedFromReceiveCountsAndDrainsTheBuffer() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { _, value in value == 2 ? .max(2) : .max(1) }
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        XCTAssertEqual(inners[0].send(1), .max(1))
        XCTAssertEqual(inners[0].send(2), .max(1))
        XCTAssertEqual(inners[0].history, [.request(.max(1))])
        XCTAssertEqual(recorder.values, [1, 2])

        let waiting = Recorder<Int, Never>(initialDemand: nil) { _, _ in .max(1) }
        let upstream2 = ManualPublisher<Int, Never>()
        upstream2.flatMap { inners[$0] }.subscribe(waiting)
        upstream2.send(1)
        XCTAssertEqual(inners[1].send(7), .none)
        XCTAssertEqual(inners[1].send(8), .none, "a misbehaving inner's extra value waits too")
        waiting.request(.max(1))
        XCTAssertEqual(waiting.values, [7, 8], "7's returned demand delivered 8")
    }

    func testFinishesOnlyWhenUpstreamAndEveryInnerHaveFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>()
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        upstream.send(1)
        inners[0].send(completion: .finished)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.completions, [])
        inners[1].send(3)
        inners[1].send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .value(3), .completion(.finished)])
    }

    func testFinishWaitsForQueuedValuesAndNeedsNoDemand() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        upstream.send(1)
        inners[0].send(1)
        inners[1].send(2)
        upstream.send(completion: .finished)
        inners[0].send(completion: .finished)
        inners[1].send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .value(1)])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .value(1), .value(2), .completion(.finished)])

        let empty = Recorder<Int, Never>(initialDemand: nil)
        [1, 2].publisher.flatMap { _ in Empty<Int, Never>() }.subscribe(empty)
        XCTAssertEqual(empty.events, [.subscription("FlatMap"), .completion(.finished)])
    }

    func testInnerFailureCancelsUpstreamAndOtherInnersExactlyOnce() {
        let upstream = ManualPublisher<Int, TestError>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, TestError>() }
        let recorder = Recorder<Int, TestError>()
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        upstream.send(1)
        inners[1].send(completion: .failure(TestError(2)))
        inners[0].send(9)
        inners[0].send(completion: .failure(TestError(3)))
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .completion(.failure(TestError(2)))])
        XCTAssertEqual(
            upstream.history, [.request(.unlimited), .cancel],
            "unlike Combine, which leaves the upstream running and holding the transform after the failure")
        XCTAssertEqual(inners[0].history, [.request(.unlimited), .cancel])
        XCTAssertEqual(inners[1].history, [.request(.unlimited)], "the failed inner is not cancelled")
    }

    func testUpstreamFailureCancelsInnersButNotTheUpstream() {
        let upstream = ManualPublisher<Int, TestError>()
        let inner = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.flatMap { _ in inner }.subscribe(recorder)
        upstream.send(0)
        inner.send(1)
        upstream.send(completion: .failure(TestError(5)))
        XCTAssertEqual(
            recorder.events, [.subscription("FlatMap"), .value(1), .completion(.failure(TestError(5)))])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
        XCTAssertEqual(inner.history, [.request(.unlimited), .cancel])
    }

    func testCancelCancelsUpstreamAndInnersOnceAndStopsDelivery() {
        let upstream = ManualPublisher<Int, Never>()
        let inners = (0..<2).map { _ in ManualPublisher<Int, Never>() }
        let recorder = Recorder<Int, Never>()
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        upstream.send(0)
        upstream.send(1)
        recorder.cancel()
        recorder.cancel()
        inners[0].send(1)
        XCTAssertEqual(recorder.events, [.subscription("FlatMap")])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
        for inner in inners {
            XCTAssertEqual(inner.history, [.request(.unlimited), .cancel])
        }
    }

    func testCancelInsideReceiveSubscriptionNeverRequestsUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil) { _, _ in
            .none
        } onSubscription: { _, subscription in
            subscription.cancel()
        }
        upstream.flatMap { Just($0) }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.cancel])
    }

    func testReentrantRequestFromReceiveDeliversEverythingWithoutRecursion() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1)) { recorder, _ in
            recorder.request(.max(1))
            return .none
        }
        (0..<1_000).publisher.flatMap(maxPublishers: .max(1)) { Just($0) }.subscribe(recorder)
        XCTAssertEqual(recorder.values, Array(0..<1_000))
        XCTAssertEqual(recorder.completions, [.finished])
    }

    /// Regression for the `Just` fast path (no inner subscription): like a subscribed Just, which delivers or is
    /// buffered the moment it is asked and then finishes, every Just frees its maxPublishers slot at once with a
    /// request for one more upstream value (not as returned demand), whether its value was delivered or waits.
    func testJustInnersFreeTheirSlotByRequestWhetherDeliveredOrBuffered() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        upstream.flatMap(maxPublishers: .max(2)) { Just($0 * 10) }.subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(2))])
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(1))], "delivered: its slot is free")
        XCTAssertEqual(upstream.send(2), .none)
        XCTAssertEqual(upstream.send(3), .none)
        XCTAssertEqual(recorder.values, [10], "no demand: 20 and 30 wait")
        XCTAssertEqual(
            upstream.history, [.request(.max(2)), .request(.max(1)), .request(.max(1)), .request(.max(1))],
            "a buffered Just is done too")
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [10, 20])
        recorder.request(.max(2))
        XCTAssertEqual(recorder.values, [10, 20, 30])
        XCTAssertEqual(upstream.send(4), .none)
        XCTAssertEqual(recorder.values, [10, 20, 30, 40], "the demand left over took 40 at once")
    }

    /// Regression for the `Just` fast path: with unlimited maxPublishers nothing is requested upstream per value,
    /// and a Just arriving while values wait joins the end of the buffer.
    func testJustInnersWithUnlimitedMaxPublishersKeepTheUpstreamOrder() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.flatMap { Just($0) }.subscribe(recorder)
        for value in 1...3 { XCTAssertEqual(upstream.send(value), .none) }
        recorder.request(.max(2))
        XCTAssertEqual(upstream.send(4), .none)
        recorder.request(.unlimited)
        XCTAssertEqual(upstream.send(5), .none)
        XCTAssertEqual(recorder.values, [1, 2, 3, 4, 5])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    /// Regression for the `Just` fast path with unlimited demand (no lock taken per value): nothing is delivered
    /// after cancel, and the transform's values arrive in order.
    func testJustInnersWithUnlimitedDemandStopAtCancel() {
        let upstream = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let cancellable = upstream.flatMap { Just($0) }.sink { received.append($0) }
        for value in 1...3 { upstream.send(value) }
        cancellable.cancel()
        upstream.send(4)
        XCTAssertEqual(received, [1, 2, 3])
    }

    func testSubscriptionAndInnerSubscriberDescribeThemselvesLikeCombine() throws {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let inner = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Int, Never>()
        // Unowned: the transform holding the inner, which holds its subscriber, would be a cycle through the flatMap.
        upstream.flatMap { [unowned inner] _ in inner }.subscribe(recorder)
        upstream.send(subscription: LoggingUpstreamSubscription())
        upstream.send(0)

        let subscription = try XCTUnwrap(upstream.operatorSubscriber)
        XCTAssertEqual(String(describing: subscription), "FlatMap")
        XCTAssertEqual(
            (subscription as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "FlatMap")
        XCTAssertEqual((subscription as? CustomReflectable)?.customMirror.children.count, 0)
        XCTAssertFalse(subscription is CustomDebugStringConvertible)

        let innerSubscriber = try XCTUnwrap(inner.operatorSubscriber)
        XCTAssertEqual(String(describing: innerSubscriber), "FlatMap")
        XCTAssertEqual(
            (innerSubscriber as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "FlatMap")
        let children = try XCTUnwrap((innerSubscriber as? CustomReflectable)?.customMirror.children).map {
            ($0.label, String(describing: $0.value))
        }
        let parentID = try XCTUnwrap(subscription as? CustomCombineIdentifierConvertible).combineIdentifier
        XCTAssertEqual(children.map(\.0), ["parentSubscription"])
        XCTAssertEqual(children.map(\.1), ["\(parentID)"])
    }

    func testMaxOneDemandAtATime() {
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        [1, 2, 3].publisher.flatMap { Just($0) }.subscribe(recorder)
        XCTAssertEqual(recorder.values, [1])
        recorder.request(.max(1))
        recorder.request(.max(5))
        XCTAssertEqual(
            recorder.events, [.subscription("FlatMap"), .value(1), .value(2), .value(3), .completion(.finished)])
    }

    func testReleasesTheSubscriberAfterCancelAndAfterCompletion() {
        weak var cancelled: Recorder<Int, Never>?
        weak var completed: Recorder<Int, Never>?
        let upstream = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<Int, Never>()
        do {
            let recorder = Recorder<Int, Never>()
            cancelled = recorder
            upstream.flatMap { _ in inner }.subscribe(recorder)
            upstream.send(0)
            recorder.cancel()
        }
        do {
            let recorder = Recorder<Int, Never>()
            completed = recorder
            [1, 2].publisher.flatMap { Just($0) }.subscribe(recorder)
            XCTAssertEqual(recorder.completions, [.finished])
        }
        XCTAssertNil(cancelled)
        XCTAssertNil(completed)
    }
}

final class FlatMapConcurrencyTests: XCTestCase {
    func testInnersSendingFromEightThreadsAreSerializedAndNothingIsLost() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        let detector = OverlapDetector()
        let perThread = LockedBox([[Int]](repeating: [], count: 8))
        let cancellable = upstream.flatMap { inners[$0] }.sink { value in
            detector.around {
                perThread.withLock { $0[value / 100_000].append(value % 100_000) }
            }
        }
        for index in 0..<8 { upstream.send(index) }
        runConcurrently(threads: 8) { thread in
            for i in 0..<2_000 { inners[thread].send(thread * 100_000 + i) }
        }
        XCTAssertEqual(detector.overlaps, 0)
        for thread in 0..<8 {
            XCTAssertEqual(perThread.withLock { $0[thread] }, Array(0..<2_000))
        }
        cancellable.cancel()
    }

    func testExactCountsWhenDemandArrivesOneAtATimeFromFourThreads() {
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        let detector = OverlapDetector()
        let wrapped = AnySubscriber<Int, Never>(
            receiveSubscription: { recorder.receive(subscription: $0) },
            receiveValue: { value in detector.around { recorder.receive(value) } },
            receiveCompletion: { recorder.receive(completion: $0) })
        (0..<8).publisher.flatMap(maxPublishers: .max(3)) { index in (0..<500).publisher.map { index * 1_000 + $0 } }
            .subscribe(wrapped)
        runConcurrently(threads: 4) { _ in
            for _ in 0..<1_000 { recorder.request(.max(1)) }
        }
        XCTAssertEqual(detector.overlaps, 0)
        XCTAssertEqual(recorder.values.count, 4_000, "exactly what was requested, which is everything")
        XCTAssertEqual(recorder.completions, [.finished])
        // Each inner's values in the order it sent them, even though buffered values drain on whichever thread asks.
        let perInner = Dictionary(grouping: recorder.values, by: { $0 / 1_000 }).mapValues { $0.map { $0 % 1_000 } }
        XCTAssertEqual(perInner, Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, Array(0..<500)) }))
    }

    // cx-org/CombineX 9869de4: inners sending from several threads got more values through than the subscriber requested.
    func testNeverMoreThanRequestedUnderConcurrentSendsAndRequests() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
        let recorder = Recorder<Int, Never>(initialDemand: nil)
        upstream.flatMap { inners[$0] }.subscribe(recorder)
        for index in 0..<3 { upstream.send(index) }
        runConcurrently(threads: 4) { thread in
            for i in 0..<1_000 {
                if thread == 3 { recorder.request(.max(1)) } else { inners[thread].send(i) }
            }
        }
        XCTAssertLessThanOrEqual(recorder.values.count, 1_000)
    }

    /// Regression for the buffer's drain: values an inner sends while another thread drains the buffer (with the
    /// demand that thread's request brought) queue behind it, so each inner's values arrive in the order it sent them.
    func testEachInnersValuesKeepTheirOrderWhileAnotherThreadDrainsTheBuffer() {
        for _ in 0..<20 {
            let upstream = PassthroughSubject<Int, Never>()
            let inners = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
            let detector = OverlapDetector()
            let recorder = Recorder<Int, Never>(initialDemand: .max(1))
            let wrapped = AnySubscriber<Int, Never>(
                receiveSubscription: { recorder.receive(subscription: $0) },
                receiveValue: { value in detector.around { recorder.receive(value) } },
                receiveCompletion: { recorder.receive(completion: $0) })
            upstream.flatMap { inners[$0] }.subscribe(wrapped)
            for index in 0..<3 { upstream.send(index) }
            runConcurrently(threads: 4) { thread in
                for i in 0..<300 {
                    if thread == 3 { recorder.request(.max(1)) } else { inners[thread].send(thread * 1_000 + i) }
                }
            }
            XCTAssertEqual(detector.overlaps, 0)
            XCTAssertLessThanOrEqual(recorder.values.count, 301)
            for (inner, values) in Dictionary(grouping: recorder.values, by: { $0 / 1_000 }) {
                XCTAssertEqual(values, values.sorted(), "inner \(inner) out of order")
            }
        }
    }

    /// Lock inversion: the subscriber takes a user lock that another thread holds while sending into a second
    /// inner. Holding a library lock across delivery (or blocking the second sender) would deadlock.
    func testSubscriberTakingALockHeldByAnotherSenderDoesNotDeadlock() {
        let upstream = PassthroughSubject<Int, Never>()
        let inners = (0..<2).map { _ in PassthroughSubject<Int, Never>() }
        let userLock = NSRecursiveLock()
        let received = LockedBox(0)
        let cancellable = upstream.flatMap { inners[$0] }.sink { _ in
            userLock.lock()
            received.withLock { $0 += 1 }
            userLock.unlock()
        }
        upstream.send(0)
        upstream.send(1)
        runConcurrently(threads: 2, timeout: 60) { thread in
            for i in 0..<2_000 {
                if thread == 0 {
                    inners[0].send(i)
                } else {
                    userLock.lock()
                    inners[1].send(i)
                    userLock.unlock()
                }
            }
        }
        XCTAssertEqual(received.withLock { $0 }, 4_000)
        cancellable.cancel()
    }

    func testInnerFailureRacingValuesDeliversOneCompletionLast() {
        for _ in 0..<100 {
            let upstream = PassthroughSubject<Int, TestError>()
            let inners = (0..<2).map { _ in PassthroughSubject<Int, TestError>() }
            let recorder = Recorder<Int, TestError>()
            upstream.flatMap { inners[$0] }.subscribe(recorder)
            upstream.send(0)
            upstream.send(1)
            runConcurrently(threads: 2) { thread in
                if thread == 0 {
                    for i in 0..<100 { inners[0].send(i) }
                } else {
                    inners[1].send(completion: .failure(TestError()))
                }
            }
            XCTAssertEqual(recorder.completions.count, 1)
            if case .completion = recorder.events.last {} else { XCTFail("completion must be last") }
        }
    }

    func testCancelRacingInnersAndUpstreamIsSafe() {
        for _ in 0..<50 {
            let upstream = PassthroughSubject<Int, Never>()
            let inners = (0..<2).map { _ in PassthroughSubject<Int, Never>() }
            let recorder = Recorder<Int, Never>()
            upstream.flatMap { inners[$0 % 2] }.subscribe(recorder)
            upstream.send(0)
            runConcurrently(threads: 3) { thread in
                switch thread {
                case 0: for i in 0..<200 { inners[0].send(i) }
                case 1: for i in 1..<50 { upstream.send(i) }
                default: recorder.cancel()
                }
            }
            let count = recorder.values.count
            inners[0].send(1)
            inners[1].send(1)
            XCTAssertEqual(recorder.values.count, count, "nothing after cancel returned")
            XCTAssertEqual(recorder.completions, [])
        }
    }

    func testTheUpstreamSubscriptionIsReleasedAfterUnlockingWhenTheUpstreamFinishes() {
        let record = ReleaseRecord()
        let recorder = Recorder<Int, Never>()
        ReleaseProbePublisher<Int, Never>(completion: .finished, record: record).flatMap { Just($0) }.subscribe(
            recorder)
        XCTAssertEqual(record.releases, [.outsideLocks])
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .completion(.finished)])
    }

    func testTheUpstreamSubscriptionIsReleasedAfterUnlockingWhenTheUpstreamFails() {
        let record = ReleaseRecord()
        let recorder = Recorder<Int, TestError>()
        ReleaseProbePublisher<Int, TestError>(completion: .failure(TestError()), record: record)
            .flatMap { Just($0).setFailureType(to: TestError.self) }.subscribe(recorder)
        XCTAssertEqual(record.releases, [.outsideLocks])
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .completion(.failure(TestError()))])
    }
}

// Scenarios of bugs other Combine implementations shipped and later fixed.
extension FlatMapTests {
    // OpenCombine/OpenCombine 5436868: an upstream failing again from inside a child's cancel() (which the first
    // failure caused) reentered flatMap's lock; Apple's Combine stops the program there. Untangle delivers the
    // first failure once and ignores the rest.
    func testUpstreamFailingAgainWhileAChildIsCancelledDeliversOneFailure() {
        let upstream = ManualPublisher<ReentrantUpstream<Int, TestError>, TestError>()
        let child = ReentrantUpstream<Int, TestError>(onCancel: { _ in
            upstream.send(completion: .failure(TestError(2)))
        })
        let recorder = Recorder<Int, TestError>()
        upstream.flatMap { $0 }.subscribe(recorder)
        upstream.send(child)
        child.send(1)
        upstream.send(completion: .failure(TestError(1)))
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .value(1), .completion(.failure(TestError(1)))])
        XCTAssertEqual(child.log, ["request(unlimited)", "cancel"])
    }
}
