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
        let source = OpSource<Int, OpError>()
        let recorder = OpRecorder<Int, OpError>(initialDemand: .max(2))
        source.delaySubscription(for: .seconds(2), scheduler: scheduler).subscribe(recorder)
        XCTAssertEqual(recorder.events, [.subscription], "the subscriber gets its subscription at once")
        scheduler.advance(by: .milliseconds(1_999))
        XCTAssertEqual(source.subscriptions, 0)
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(source.history, [.subscribed, .request(.max(1))])
        source.send(1)
        source.send(2)
        source.finish()
        XCTAssertEqual(recorder.events, [.subscription, .value(1), .value(2), .finished])
    }

    func testCancelBeforeTheDelayNeverSubscribes() {
        let scheduler = TestScheduler()
        let source = OpSource<Int, OpError>()
        weak var weakRecorder: OpRecorder<Int, OpError>?
        do {
            let recorder = OpRecorder<Int, OpError>()
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
        let source = OpSource<Int, OpError>()
        let fallback = OpSource<Int, OpError>()
        let recorder = OpRecorder<Int, OpError>(initialDemand: .max(5))
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
        XCTAssertEqual(recorder.events, [.subscription, .value(1), .value(2), .finished])
    }

    func testUpstreamFailurePassesThroughWithoutTheFallback() {
        let scheduler = TestScheduler()
        let source = OpSource<Int, OpError>()
        let fallback = OpSource<Int, OpError>()
        let recorder = OpRecorder<Int, OpError>()
        source.timeout(.seconds(1), scheduler: scheduler, fallback: fallback).subscribe(recorder)
        source.send(completion: .failure(OpError(5)))
        scheduler.run()
        XCTAssertEqual(recorder.events, [.subscription, .failure(OpError(5))])
        XCTAssertEqual(fallback.subscriptions, 0)
    }

    func testFinishingInTimeNeverSubscribesTheFallback() {
        let scheduler = TestScheduler()
        let fallback = OpSource<Int, Never>()
        let recorder = OpRecorder<Int, Never>()
        Just(1).timeout(.seconds(1), scheduler: scheduler, fallback: fallback).subscribe(recorder)
        scheduler.run()
        XCTAssertEqual(recorder.events, [.subscription, .value(1), .finished])
        XCTAssertEqual(fallback.subscriptions, 0)
    }
}

final class PrefixForDurationTests: XCTestCase {
    func testRepublishesForTheDurationThenFinishesAndCancels() {
        let scheduler = TestScheduler()
        let source = OpSource<Int, OpError>()
        let recorder = OpRecorder<Int, OpError>()
        source.prefix(for: .seconds(3), scheduler: scheduler).subscribe(recorder)
        source.send(1)
        scheduler.advance(by: .seconds(2))
        source.send(2)
        scheduler.advance(by: .seconds(1))
        source.send(3)
        XCTAssertEqual(recorder.events, [.subscription, .value(1), .value(2), .finished])
        XCTAssertEqual(source.history, [.subscribed, .request(.unlimited), .cancel])
    }

    func testEarlyCompletionAndDemand() {
        let scheduler = TestScheduler()
        let source = OpSource<Int, OpError>()
        let recorder = OpRecorder<Int, OpError>(initialDemand: .max(1))
        source.prefix(for: .seconds(3), scheduler: scheduler).subscribe(recorder)
        XCTAssertEqual(source.history, [.subscribed, .request(.max(1))])
        source.send(1)
        source.send(completion: .failure(OpError(1)))
        scheduler.run()
        XCTAssertEqual(recorder.events, [.subscription, .value(1), .failure(OpError(1))])
    }
}
