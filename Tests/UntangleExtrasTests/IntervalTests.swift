import Foundation
import Untangle
import UntangleExtras
import UntangleTesting
import XCTest

final class IntervalTests: XCTestCase {
    func testCountsFromZeroOnePerPeriodStartingAtTheSubscription() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int, Never>()
        scheduler.advance(by: .seconds(5))
        Publishers.Interval(.seconds(1), scheduler: scheduler).subscribe(recorder)
        scheduler.advance(by: .milliseconds(999))
        XCTAssertEqual(recorder.values, [], "the first tick comes one period after the subscription")
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(recorder.values, [0])
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(recorder.values, [0, 1, 2])
        recorder.cancel()
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(recorder.values, [0, 1, 2], "cancel stops the timer")
    }

    func testEachSubscriberHasItsOwnCount() {
        let scheduler = TestScheduler()
        let interval = Publishers.Interval(.seconds(1), scheduler: scheduler)
        let first = Recorder<Int, Never>()
        interval.subscribe(first)
        scheduler.advance(by: .seconds(2))
        let second = Recorder<Int, Never>()
        interval.subscribe(second)
        scheduler.advance(by: .seconds(2))
        XCTAssertEqual(first.values, [0, 1, 2, 3])
        XCTAssertEqual(second.values, [0, 1])
    }

    func testADelayBeforeTheFirstTick() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int, Never>()
        Publishers.Interval(.seconds(10), delay: .seconds(1), scheduler: scheduler).subscribe(recorder)
        scheduler.advance(by: .seconds(1))
        XCTAssertEqual(recorder.values, [0])
        scheduler.advance(by: .seconds(10))
        XCTAssertEqual(recorder.values, [0, 1])
    }

    func testTicksBeyondDemandWaitForIt() {
        let scheduler = TestScheduler()
        let recorder = Recorder<Int, Never>(initialDemand: .max(1))
        Publishers.Interval(.seconds(1), scheduler: scheduler).subscribe(recorder)
        scheduler.advance(by: .seconds(3))
        XCTAssertEqual(recorder.values, [0])
        recorder.subscription?.request(.max(2))
        XCTAssertEqual(recorder.values, [0, 1, 2], "no tick is lost")
    }
}
