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
        let recorder = TimedRecorder<Stride, TestError>(scheduler: scheduler)
        subject.measureInterval(using: scheduler).subscribe(recorder)
        scheduler.advance(by: .milliseconds(300))
        subject.send("a")
        scheduler.advance(by: .seconds(2))
        subject.send("b")
        subject.send("c")
        scheduler.advance(by: .milliseconds(50))
        subject.send(completion: .failure(TestError(6)))
        XCTAssertEqual(
            recorder.events,
            [
                Timed(0, .subscription("MeasureInterval")), Timed(300, .value(.milliseconds(300))),
                Timed(2300, .value(.seconds(2))), Timed(2300, .value(.zero)),
                Timed(2350, .completion(.failure(TestError(6)))),
            ],
            "values arrive on the upstream's thread at once: no scheduler run needed")
    }

    func testDemandPassesThroughAndCancelReachesUpstream() {
        let scheduler = TestScheduler()
        let upstream = ManualPublisher<Int, Never>()
        let recorder = Recorder<Stride, Never>(initialDemand: .max(1)) { _, _ in .max(2) }
        upstream.measureInterval(using: scheduler).subscribe(recorder)
        XCTAssertEqual(upstream.send(1), .max(2), "the returned demand goes straight back upstream")
        recorder.cancel()
        XCTAssertEqual(upstream.history, [.request(.max(1)), .cancel])
        upstream.send(2)
        XCTAssertEqual(recorder.values.count, 1)
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
