import Untangle
import UntangleSync
import XCTest

final class CollectByCountTests: XCTestCase {
    func testDemandIsMultipliedByCountBothWays() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: .max(2)) { _, _ in .max(1) }
        upstream.collect(3).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(6))])
        XCTAssertEqual(upstream.send(1), .none)
        XCTAssertEqual(upstream.send(2), .none)
        XCTAssertEqual(upstream.send(3), .max(3), "demand returned for an array becomes count elements upstream")
        recorder.request(.unlimited)
        XCTAssertEqual(upstream.history, [.request(.max(6)), .request(.unlimited)])
    }

    func testPartialArrayAtFinish() {
        let recorder = Recorder<[Int], Never>()
        (0...4).publisher.collect(2).subscribe(recorder)
        XCTAssertEqual(
            recorder.events,
            [.subscription("CollectByCount"), .value([0, 1]), .value([2, 3]), .value([4]), .completion(.finished)])
    }

    func testExactDemandOverASequence() {
        let recorder = Recorder<[Int], Never>(initialDemand: .max(1))
        (1...10).publisher.collect(4).subscribe(recorder)
        XCTAssertEqual(recorder.values, [[1, 2, 3, 4]])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [[1, 2, 3, 4], [5, 6, 7, 8]])
        XCTAssertEqual(recorder.completions, [])
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values, [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]])
        XCTAssertEqual(recorder.completions, [.finished])
    }

    func testFailureDiscardsThePartialArray() {
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        upstream.collect(2).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .failure(TestError(4)))
        XCTAssertEqual(recorder.events, [.subscription("CollectByCount"), .completion(.failure(TestError(4)))])
    }

    func testCancelIsIdempotentAndReleasesTheSink() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: .max(1))
        upstream.collect(2).subscribe(recorder)
        recorder.cancel()
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .cancel])
        XCTAssertTrue(sinkIsReleased(upstream.collect(2), cancel: true))
    }

    func testEquatableWhenTheUpstreamIs() {
        XCTAssertEqual(Just(1).collect(2), Just(1).collect(2))
        XCTAssertNotEqual(Just(1).collect(2), Just(1).collect(3))
    }

    func testDemandReturnedForAFullArrayIsMultipliedAndTheRestReturnNone() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: .max(2)) { _, _ in .max(3) }
        upstream.collect(4).subscribe(recorder)
        XCTAssertEqual(upstream.history, [.request(.max(8))])
        XCTAssertEqual((1...3).map { upstream.send($0) }, [.none, .none, .none])
        XCTAssertEqual(upstream.send(4), .max(12))
        XCTAssertEqual(recorder.values, [[1, 2, 3, 4]])
    }

    /// Combine keeps the subscriber and passes a second completion (from a misbehaving upstream) on; Untangle
    /// releases the subscriber with the first completion, so nothing follows it.
    func testOnlyTheFirstCompletionIsPassedOnAndLaterValuesAreIgnored() {
        let upstream = UnsubscribedUpstream<Int, TestError>()
        let recorder = Recorder<[Int], TestError>()
        upstream.collect(2).subscribe(recorder)
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError(2)))
        XCTAssertEqual(upstream.send(3), .none)
        XCTAssertEqual(upstream.send(4), .none)
        recorder.request(.max(2))
        XCTAssertEqual(recorder.events, [.subscription("CollectByCount"), .value([1]), .completion(.finished)])
        XCTAssertEqual(subscription.history, [.request(.unlimited)])
    }

    /// Combine passes on a completion that comes after cancel; Untangle's contract delivers nothing after cancel.
    func testNothingIsDeliveredAfterCancelAndALaterSubscriptionIsCancelled() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        upstream.collect(2).subscribe(recorder)
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        upstream.send(1)
        recorder.cancel()
        upstream.send(2)
        upstream.send(completion: .finished)
        let another = LoggingUpstreamSubscription()
        upstream.send(subscription: another)
        recorder.request(.max(1))
        recorder.cancel()
        XCTAssertEqual(recorder.events, [.subscription("CollectByCount")])
        XCTAssertEqual(subscription.history, [.request(.unlimited), .cancel])
        XCTAssertEqual(another.history, [.cancel])
    }

    /// As in Combine: a value before the subscription is dropped, a completion is passed on.
    func testAValueBeforeTheSubscriptionIsIgnoredButACompletionIsPassedOn() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        upstream.collect(2).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .none)
        upstream.operatorSubscription?.request(.max(1))
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.completion(.finished)])
    }

    func testAnEarlyCancelMakesTheLateSubscriptionBeIgnored() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        upstream.collect(2).subscribe(recorder)
        upstream.operatorSubscription?.cancel()
        let late = LoggingUpstreamSubscription()
        upstream.send(subscription: late)
        upstream.send(completion: .finished)
        XCTAssertEqual(late.history, [], "as in Combine: neither passed on nor cancelled")
        XCTAssertEqual(recorder.events, [])
    }

    func testMirrorShowsDownstreamSubscriptionBufferAndCount() throws {
        let upstream = UnsubscribedUpstream<Int, Never>()
        upstream.collect(3).subscribe(Recorder<[Int], Never>())
        let subscriber = try XCTUnwrap(upstream.operatorSubscriber)
        XCTAssertEqual((subscriber as? CustomStringConvertible)?.description, "CollectByCount")
        XCTAssertEqual(
            (subscriber as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "CollectByCount")
        upstream.send(subscription: LoggingUpstreamSubscription())
        upstream.send(7)
        let mirror = try XCTUnwrap((subscriber as? CustomReflectable)?.customMirror)
        XCTAssertEqual(mirror.children.map(\.label), ["downstream", "upstreamSubscription", "buffer", "count"])
        let values = mirror.children.map { String(describing: $0.value) }
        XCTAssertTrue(values[0].contains("Recorder"), values[0])
        XCTAssertEqual(values[2], "[7]")
        XCTAssertEqual(values[3], "3")
    }

    func testCancelInsideThePartialArrayAtFinishGetsNoFinished() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<[Int], Never>(initialDemand: .max(2)) { recorder, array in
            if array.count < 2 { recorder.cancel() }
            return .none
        }
        upstream.collect(2).subscribe(recorder)
        for value in 1...3 { upstream.send(value) }
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("CollectByCount"), .value([1, 2]), .value([3])])
        XCTAssertEqual(upstream.history, [.request(.max(4))], "the upstream had finished: nothing to cancel")
    }
}
