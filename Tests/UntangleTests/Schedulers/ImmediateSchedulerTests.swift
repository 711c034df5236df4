import Foundation
import Untangle
import XCTest

final class ImmediateSchedulerTests: XCTestCase {
    typealias Stride = ImmediateScheduler.SchedulerTimeType.Stride

    func testActionsRunSynchronouslyOnTheCallingThread() {
        let scheduler = ImmediateScheduler.shared
        var runs: [String] = []
        scheduler.schedule { runs.append("now") }
        XCTAssertEqual(runs, ["now"])
        scheduler.schedule(after: scheduler.now.advanced(by: 1000)) { runs.append("future date runs immediately") }
        XCTAssertEqual(runs, ["now", "future date runs immediately"])
        let cancellable = scheduler.schedule(after: scheduler.now, interval: 10) { runs.append("repeat runs once") }
        XCTAssertEqual(runs, ["now", "future date runs immediately", "repeat runs once"])
        cancellable.cancel()
        cancellable.cancel()
        XCTAssertEqual(runs.count, 3)
    }

    func testTimeNeverPasses() {
        let now = ImmediateScheduler.shared.now
        XCTAssertEqual(now, now.advanced(by: 100))
        XCTAssertEqual(now.distance(to: now.advanced(by: -1)), 0)
        XCTAssertEqual(ImmediateScheduler.shared.minimumTolerance, 0)
    }

    func testStrideArithmeticAndLiterals() throws {
        XCTAssertEqual(Stride(14), 14)
        XCTAssertEqual(Stride(14), 14.6)
        XCTAssertEqual(Stride(-4) * Stride(5), -20)
        XCTAssertEqual(Stride(10) + Stride(3), 13)
        XCTAssertEqual(Stride(10) - Stride(3), 7)
        XCTAssertLessThan(Stride(-10), Stride(2))
        var stride = Stride(-4)
        stride += 5
        stride -= -10
        stride *= 2
        XCTAssertEqual(stride, 22)
        XCTAssertEqual(Stride(exactly: 7 as UInt8), 7)
        XCTAssertNil(Stride(exactly: UInt64.max))
        XCTAssertEqual(Stride.seconds(2), 0)
        XCTAssertEqual(Stride.seconds(1.5), 0)
        XCTAssertEqual(Stride.milliseconds(5), 0)
        XCTAssertEqual(Stride.microseconds(5), 0)
        XCTAssertEqual(Stride.nanoseconds(5), 0)
        let data = try JSONEncoder().encode(Stride(-42))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"magnitude":-42}"#)
        XCTAssertEqual(try JSONDecoder().decode(Stride.self, from: data), -42)
    }
}

extension ImmediateSchedulerTests {
    func testTheRepeatingFormRunsOnceAndReturnsTheEmptySubscription() {
        var runs = 0
        let cancellable = ImmediateScheduler.shared.schedule(
            after: ImmediateScheduler.shared.now, interval: 10
        ) { runs += 1 }
        XCTAssertEqual(runs, 1)
        XCTAssertEqual(String(describing: cancellable), "Empty", "Subscriptions.empty, as in Combine")
    }
}
