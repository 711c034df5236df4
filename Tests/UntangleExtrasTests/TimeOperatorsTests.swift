import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class DelaySubscriptionTests: XCTestCase {
    // Built on flatMap, the upstream is asked as flatMap asks its inners: one value at a time while the subscriber
    // has demand (the two requested here arrive one after the other).
    func testSubscribesAfterTheDelayAndAsksForOneValueAtATime() {
        let scheduler = TestScheduler()
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2))
        source.delaySubscription(for: .seconds(2), scheduler: scheduler).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription("FlatMap")], "the subscriber gets its subscription at once")
        scheduler.advance(by: .milliseconds(1_999))
        XCTAssertEqual(source.subscriptions, 0)
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(source.history, [.subscribed, .request(.max(1))])
        source.send(1)
        source.send(2)
        source.finish()
        XCTAssertEqual(recorder.events, [.subscription("FlatMap"), .value(1), .value(2), .completion(.finished)])
    }

    func testCancelBeforeTheDelayNeverSubscribes() {
        let scheduler = TestScheduler()
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        weak var weakRecorder: Recorder<Int, TestError>?
        do {
            let recorder = Recorder<Int, TestError>()
            weakRecorder = recorder
            source.delaySubscription(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
            recorder.cancel()
        }
        scheduler.run()
        XCTAssertEqual(source.subscriptions, 0)
        XCTAssertNil(weakRecorder)
    }
}

final class TimeoutFallbackTests: XCTestCase {
    func testSwitchesToTheFallbackAfterSilence() {
        let scheduler = TestScheduler()
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let fallback = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: .max(5))
        source.timeout(.seconds(1), scheduler: scheduler, fallback: fallback).subscribe(recorder)
        scheduler.advance(by: .milliseconds(500))
        source.send(1)
        scheduler.advance(by: .milliseconds(999))
        XCTAssertEqual(fallback.subscriptions, 0, "each value restarts the interval")
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(source.history.last, .cancel)
        XCTAssertEqual(fallback.history, [.subscribed, .request(.max(4))], "the outstanding demand carries over")
        fallback.send(2)
        fallback.finish()
        XCTAssertEqual(recorder.events, [.subscription("Catch"), .value(1), .value(2), .completion(.finished)])
    }

    // ReactiveX/RxSwift b7e0ca68 (issue 367): a timeout after some values did nothing at the due time (the
    // fallback was optional and missing). The interval runs from the last value; at its end the source is cancelled
    // and the fallback, here a failure, ends the stream at that very time.
    func testSilenceAfterValuesCancelsTheSourceAndTheFallbackFailsAtTheDueTime() {
        let scheduler = TestScheduler()
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        source.timeout(.milliseconds(25), scheduler: scheduler, fallback: Fail(error: TestError(9))).subscribe(recorder)
        scheduler.advance(by: .milliseconds(10))
        source.send(1)
        scheduler.advance(by: .milliseconds(10))
        source.send(2)
        scheduler.advance(by: .milliseconds(24))
        XCTAssertFalse(source.history.contains(.cancel), "25 ms from the last value have not passed yet")
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(source.history.last, .cancel)
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("Catch")), Timed(10, .value(1)), Timed(20, .value(2)),
                Timed(45, .completion(.failure(TestError(9)))),
            ])
        source.send(3)
        scheduler.run()
        XCTAssertEqual(recorder.values, [1, 2], "nothing from the cancelled source")
    }

    func testUpstreamFailurePassesThroughWithoutTheFallback() {
        let scheduler = TestScheduler()
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let fallback = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        source.timeout(.seconds(1), scheduler: scheduler, fallback: fallback).subscribe(recorder)
        source.send(completion: .failure(TestError(5)))
        scheduler.run()
        XCTAssertEqual(recorder.events, [.subscription("Catch"), .completion(.failure(TestError(5)))])
        XCTAssertEqual(fallback.subscriptions, 0)
    }

    func testFinishingInTimeNeverSubscribesTheFallback() {
        let scheduler = TestScheduler()
        let fallback = ManualPublisher<Int, Never>(recordsSubscriptions: true)
        let recorder = Recorder<Int, Never>()
        Just(1).timeout(.seconds(1), scheduler: scheduler, fallback: fallback).subscribe(recorder)
        scheduler.run()
        XCTAssertEqual(recorder.events, [.subscription("Catch"), .value(1), .completion(.finished)])
        XCTAssertEqual(fallback.subscriptions, 0)
    }
}

final class PrefixForDurationTests: XCTestCase {
    func testRepublishesForTheDurationThenFinishesAndCancels() {
        let scheduler = TestScheduler()
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>()
        source.prefix(for: .seconds(3), scheduler: scheduler).subscribe(recorder)
        source.send(1)
        scheduler.advance(by: .seconds(2))
        source.send(2)
        scheduler.advance(by: .seconds(1))
        source.send(3)
        // Like Combine's prefix(untilOutputFrom:), the subscription does not describe itself: only its position is checked.
        guard case .subscription = recorder.events.first else { return XCTFail("\(recorder.events)") }
        XCTAssertEqual(Array(recorder.events.dropFirst()), [.value(1), .value(2), .completion(.finished)])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testEarlyCompletionAndDemand() {
        let scheduler = TestScheduler()
        let source = ManualPublisher<Int, TestError>(recordsSubscriptions: true)
        let recorder = Recorder<Int, TestError>(initialDemand: .max(1))
        source.prefix(for: .seconds(3), scheduler: scheduler).subscribe(recorder)
        XCTAssertEqual(source.history, [.subscribed, .request(.max(1))])
        source.send(1)
        source.send(completion: .failure(TestError(1)))
        scheduler.run()
        guard case .subscription = recorder.events.first else { return XCTFail("\(recorder.events)") }
        XCTAssertEqual(Array(recorder.events.dropFirst()), [.value(1), .completion(.failure(TestError(1)))])
    }
}
