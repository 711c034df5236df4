import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

final class MeasureIntervalTests: XCTestCase {
    typealias Stride = DispatchQueue.SchedulerTimeType.Stride

    func testEmitsTheTimeSinceSubscribingThenSinceThePreviousValue() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<String, TestError>()
        let recorder = Recorder<Stride, TestError>(clock: scheduler)
        subject.measureInterval(using: scheduler).subscribe(recorder)
        scheduler.advance(by: .milliseconds(300))
        subject.send("a")
        scheduler.advance(by: .seconds(2))
        subject.send("b")
        subject.send("c")
        scheduler.advance(by: .milliseconds(50))
        subject.send(completion: .failure(TestError(6)))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("MeasureInterval")), Timed(300, .value(.milliseconds(300))),
                Timed(2300, .value(.seconds(2))), Timed(2300, .value(.zero)),
                Timed(2350, .completion(.failure(TestError(6)))),
            ],
            "values arrive on the upstream's thread at once: no scheduler run needed")
    }

    func testReturnedDemandIsRequestedUpstreamAtOnceAndCancelReachesUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Stride, Never>(initialDemand: .max(1)) { _, _ in .max(2) }
        upstream.measureInterval(using: scheduler).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .none, "as in Combine, the returned demand is requested, not returned")
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(2))])
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(1)), .request(.max(2)), .cancel])
        upstream.send(2)
        XCTAssertEqual(recorder.values.count, 1)
    }

    func testEveryRequestIncludingNoneIsForwardedUntilCancel() {
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Stride, Never>(initialDemand: nil)
        upstream.measureInterval(using: TestScheduler()).subscribe(recorder)
        recorder.request(.max(2))
        recorder.request(.none)
        recorder.request(.unlimited)
        recorder.cancel()
        recorder.request(.max(5))
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.none), .request(.unlimited), .cancel])
    }

    func testAValueSentFromInsideTheUpstreamsRequestIsDeliveredNested() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Stride, Never>(initialDemand: nil) { _, _ in .max(1) }
        upstream.measureInterval(using: TestScheduler()).subscribe(recorder)
        let subscription = LoggingUpstreamSubscription()
        upstream.send(subscription: subscription)
        var remaining = 3
        subscription.onRequest = { _ in
            guard remaining > 0 else { return }
            remaining -= 1
            XCTAssertEqual(upstream.send(0), .none)
        }
        XCTAssertEqual(upstream.send(0), .none)
        XCTAssertEqual(recorder.values, [.zero, .zero, .zero, .zero])
        XCTAssertEqual(subscription.history, Array(repeating: .request(.max(1)), count: 4))
    }

    func testSignalsBeforeTheSubscriptionAreIgnored() {
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Stride, Never>()
        upstream.measureInterval(using: TestScheduler()).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .none)
        upstream.send(completion: .finished)
        upstream.operatorSubscription?.request(.max(1))
        XCTAssertEqual(recorder.events, [])
    }

    func testCancelBeforeTheUpstreamSubscriptionMakesItBeIgnoredAndASecondOneIsCancelled() {
        let early = UnsubscribedUpstream<Int, Never>()
        early.measureInterval(using: TestScheduler()).subscribe(Recorder<Stride, Never>())
        early.operatorSubscription?.cancel()
        let late = LoggingUpstreamSubscription()
        early.send(subscription: late)
        XCTAssertEqual(late.history, [], "as in Combine: neither passed on nor cancelled")

        let upstream = UnsubscribedUpstream<Int, Never>()
        upstream.measureInterval(using: TestScheduler()).subscribe(Recorder<Stride, Never>(initialDemand: nil))
        let first = LoggingUpstreamSubscription()
        let second = LoggingUpstreamSubscription()
        upstream.send(subscription: first)
        upstream.send(subscription: second)
        XCTAssertEqual(second.history, [.cancel])
        XCTAssertEqual(first.history, [])
    }

    func testTheClockStartsWhenTheUpstreamSubscriptionArrives() {
        let scheduler = TestScheduler()
        let upstream = UnsubscribedUpstream<Int, Never>()
        let recorder = Recorder<Stride, Never>()
        upstream.measureInterval(using: scheduler).subscribe(recorder)
        scheduler.advance(by: .seconds(5))
        upstream.send(subscription: LoggingUpstreamSubscription())
        scheduler.advance(by: .milliseconds(20))
        upstream.send(1)
        XCTAssertEqual(recorder.values, [.milliseconds(20)])
    }

    func testDescribesItselfAsMeasureIntervalWithAnEmptyMirror() throws {
        let upstream = UnsubscribedUpstream<Int, Never>()
        upstream.measureInterval(using: TestScheduler()).subscribe(Recorder<Stride, Never>())
        let subscriber = try XCTUnwrap(upstream.operatorSubscriber)
        XCTAssertEqual((subscriber as? CustomStringConvertible)?.description, "MeasureInterval")
        XCTAssertEqual(
            (subscriber as? CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String, "MeasureInterval")
        XCTAssertEqual((subscriber as? CustomReflectable)?.customMirror.children.count, 0)
    }

    func testCompletionWithZeroDemandIsDelivered() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Stride, Never>(initialDemand: nil)
        upstream.measureInterval(using: scheduler).subscribe(recorder)
        upstream.send(completion: .finished)
        XCTAssertEqual(recorder.events, [.subscription("MeasureInterval"), .completion(.finished)])
    }
}
