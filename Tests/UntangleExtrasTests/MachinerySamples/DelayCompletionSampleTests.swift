import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

/// Machinery.md's scheduler sample (`delayCompletion(for:scheduler:)`, Publishers.DelayCompletion.swift beside this
/// file) behaves as written on the scheduler skeleton: values at once, the completion after the interval, demand
/// passed upstream, and nothing after a cancel.
final class DelayCompletionSampleTests: XCTestCase {
    func testValuesPassAtOnceAndTheCompletionArrivesAfterTheInterval() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(clock: scheduler)
        upstream.delayCompletion(for: .milliseconds(300), scheduler: scheduler).subscribe(recorder)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(100))
        upstream.send(2)
        upstream.send(completion: .failure(TestError(3)))
        scheduler.advance(by: .milliseconds(299))
        XCTAssertEqual(recorder.completions, [], "the completion waits for the interval")
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("DelayCompletion")), Timed(0, .value(1)), Timed(100, .value(2)),
                Timed(400, .completion(.failure(TestError(3)))),
            ])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testRequestsAndTheDemandReturnedFromReceiveGoUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>(initialDemand: .max(2)) { _, value in value == 1 ? .max(3) : .none }
        upstream.delayCompletion(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        upstream.send(1)
        recorder.request(.max(4))
        XCTAssertEqual(upstream.history, [.request(.max(2)), .request(.max(3)), .request(.max(4))])
    }

    func testACancelWhileTheCompletionWaitsDeliversNothingMore() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.delayCompletion(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        upstream.send(1)
        upstream.send(completion: .finished)
        recorder.cancel()
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.events, [.subscription("DelayCompletion"), .value(1)])
        XCTAssertEqual(upstream.history, [.request(.unlimited)], "the upstream had ended: nothing to cancel")
    }

    func testACancelBeforeTheEndCancelsTheUpstreamAndIgnoresItsLateSignals() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        upstream.delayCompletion(for: .seconds(1), scheduler: scheduler).subscribe(recorder)
        recorder.cancel()
        upstream.send(1)
        upstream.send(completion: .finished)
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.events, [.subscription("DelayCompletion")])
        XCTAssertEqual(upstream.history, [.request(.unlimited), .cancel])
    }
}
