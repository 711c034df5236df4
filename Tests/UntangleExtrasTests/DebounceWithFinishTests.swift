import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

/// UntangleExtras' `debounce(for:scheduler:options:onFinish:)`: `.deliverPendingValue` is RxSwift's debounce (the
/// value waiting when the upstream finishes is delivered, then the completion), `.dropPendingValue` Combine's.
final class DebounceWithFinishTests: XCTestCase {
    /// RxSwift's `Observable.of(1, 2, 3).debounce(.seconds(1), scheduler:)` publishes 3, then completes.
    func testASynchronousSourceDeliversItsLastValueThenFinishes() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int, Never>(clock: scheduler)
        [1, 2, 3].publisher.debounce(for: .seconds(1), scheduler: scheduler, onFinish: .deliverPendingValue)
            .subscribe(recorder)
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(0, .value(3)), Timed(0, .completion(.finished))])
        XCTAssertEqual(scheduler.scheduledActionCount, 0)
    }

    func testDropPendingValueIsCombinesDebounce() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int, Never>(clock: scheduler)
        let combines = Recorder<Int, Never>(clock: scheduler)
        [1, 2, 3].publisher.debounce(for: .seconds(1), scheduler: scheduler, onFinish: .dropPendingValue)
            .subscribe(recorder)
        [1, 2, 3].publisher.debounce(for: .seconds(1), scheduler: scheduler).subscribe(combines)
        scheduler.advance(by: .seconds(5))
        XCTAssertEqual(
            recorder.timedEvents, [Timed(0, .subscription("Debounce")), Timed(0, .completion(.finished))])
        XCTAssertEqual(recorder.timedEvents, combines.timedEvents)
    }

    /// The quiet periods work as the core's: values between finish only by the finish, values with a quiet period
    /// after them are delivered when it ends.
    func testQuietPeriodsThenAFinishWhileAValueWaits() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<String, TestError>()
        let recorder = Recorder<String, TestError>(clock: scheduler)
        upstream.debounce(for: .milliseconds(500), scheduler: scheduler, onFinish: .deliverPendingValue)
            .subscribe(recorder)
        for (text, wait) in [("s", 100), ("sw", 600), ("swi", 100), ("swift", 100)] {
            upstream.send(text)
            scheduler.advance(by: .milliseconds(wait))
        }
        upstream.finish()
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(
            recorder.timedEvents,
            [
                Timed(0, .subscription("Debounce")), Timed(600, .value("sw")), Timed(900, .value("swift")),
                Timed(900, .completion(.finished)),
            ])
        XCTAssertEqual(upstream.history, [.request(.unlimited)])
    }

    func testAFailureDropsTheWaitingValue() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<String, TestError>()
        let recorder = Recorder<String, TestError>(clock: scheduler)
        upstream.debounce(for: .seconds(1), scheduler: scheduler, onFinish: .deliverPendingValue).subscribe(recorder)
        upstream.send("a")
        upstream.send(completion: .failure(TestError(1)))
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(
            recorder.timedEvents, [Timed(0, .subscription("Debounce")), Timed(0, .completion(.failure(TestError(1))))])
    }

    func testTheWaitingValueAndTheCompletionWaitForDemand() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Int, Never>(clock: scheduler, initialDemand: nil)
        upstream.debounce(for: .seconds(1), scheduler: scheduler, onFinish: .deliverPendingValue).subscribe(recorder)
        upstream.send(1)
        upstream.finish()
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(recorder.timedEvents, [Timed(0, .subscription("Debounce"))])
        recorder.request(.max(1))
        scheduler.advance()
        XCTAssertEqual(
            recorder.timedEvents,
            [Timed(0, .subscription("Debounce")), Timed(3000, .value(1)), Timed(3000, .completion(.finished))])
    }

    func testThePublisherKeepsItsParameters() {
        let scheduler = TestScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let debounced = subject.debounce(
            for: .seconds(2), scheduler: scheduler, options: nil, onFinish: .deliverPendingValue)
        XCTAssertEqual(debounced.debounce.dueTime, .seconds(2))
        XCTAssertEqual(debounced.onFinish, .deliverPendingValue)
        XCTAssertNil(debounced.debounce.options)
        let made = Publishers.DebounceWithFinish(
            subject.debounce(for: .seconds(1), scheduler: scheduler), onFinish: .dropPendingValue)
        XCTAssertEqual(made.onFinish, .dropPendingValue)
    }
}
