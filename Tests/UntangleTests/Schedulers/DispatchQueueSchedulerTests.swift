import Dispatch
import Foundation
import Untangle
import UntangleSync
import XCTest

final class DispatchQueueSchedulerTests: XCTestCase {
    typealias Stride = DispatchQueue.SchedulerTimeType.Stride
    typealias Time = DispatchQueue.SchedulerTimeType

    private let key = DispatchSpecificKey<String>()

    private func makeQueue(_ label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: label)
        return queue
    }

    func testScheduleRunsOnTheTargetQueue() {
        let queue = makeQueue("target")
        let key = key
        let ran = expectation(description: "ran")
        queue.schedule {
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "target")
            ran.fulfill()
        }
        wait(for: [ran], timeout: 30)
    }

    func testScheduleWithOptionsUsesTheGroup() {
        let queue = makeQueue("grouped")
        let group = DispatchGroup()
        let ran = LockedBox(false)
        queue.schedule(options: .init(qos: .userInitiated, group: group)) { ran.withLock { $0 = true } }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertTrue(ran.withLock { $0 })
    }

    func testAfterRunsOnTheQueueNotBeforeTheDeadlineAndInDeadlineOrder() {
        let queue = makeQueue("after")
        let key = key
        let order = LockedBox<[Int]>([])
        let done = expectation(description: "both ran")
        done.expectedFulfillmentCount = 2
        let start = queue.now
        let early = start.advanced(by: .milliseconds(20))
        let late = start.advanced(by: .milliseconds(60))
        queue.schedule(after: late, tolerance: .zero, options: nil) {
            XCTAssertGreaterThanOrEqual(queue.now, late)
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "after")
            order.withLock { $0.append(2) }
            done.fulfill()
        }
        queue.schedule(after: early) {
            XCTAssertGreaterThanOrEqual(queue.now, early)
            order.withLock { $0.append(1) }
            done.fulfill()
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(order.withLock { $0 }, [1, 2])
    }

    func testRepeatingRunsOnTheQueueAndStopsAfterCancel() {
        let queue = makeQueue("repeat")
        let key = key
        let count = LockedBox(0)
        let threeRuns = expectation(description: "three runs")
        threeRuns.assertForOverFulfill = false
        let start = queue.now
        let cancellable = queue.schedule(after: start, interval: .milliseconds(5)) {
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "repeat")
            if count.update({ $0 + 1 }) == 3 { threeRuns.fulfill() }
        }
        wait(for: [threeRuns], timeout: 30)
        cancellable.cancel()
        cancellable.cancel()
        // A barrier on the serial queue: anything the timer already queued has run; nothing starts afterwards.
        let after = queue.sync { count.withLock { $0 } }
        let drained = expectation(description: "later work ran")
        queue.schedule(after: queue.now.advanced(by: .milliseconds(50))) { drained.fulfill() }
        wait(for: [drained], timeout: 30)
        XCTAssertEqual(count.withLock { $0 }, after, "no run after cancel() returned")
    }

    func testDroppingTheRepeatingCancellableCancels() {
        let queue = makeQueue("dropped")
        let count = LockedBox(0)
        do {
            let cancellable = queue.schedule(after: queue.now.advanced(by: .milliseconds(30)), interval: .seconds(1)) {
                count.withLock { $0 += 1 }
            }
            _ = cancellable
        }
        let later = expectation(description: "later")
        queue.schedule(after: queue.now.advanced(by: .milliseconds(80))) { later.fulfill() }
        wait(for: [later], timeout: 30)
        XCTAssertEqual(count.withLock { $0 }, 0)
    }

    func testStrideLiteralsAreSecondsAndMagnitudeIsNanoseconds() {
        XCTAssertEqual((2 as Stride).magnitude, 2_000_000_000)
        XCTAssertEqual((1.5 as Stride).magnitude, 1_500_000_000)
        XCTAssertEqual(Stride.seconds(2).magnitude, 2_000_000_000)
        XCTAssertEqual(Stride.seconds(0.25).magnitude, 250_000_000)
        XCTAssertEqual(Stride.milliseconds(5).magnitude, 5_000_000)
        XCTAssertEqual(Stride.microseconds(-3).magnitude, -3_000)
        XCTAssertEqual(Stride.nanoseconds(7).magnitude, 7)
        XCTAssertEqual(Stride(exactly: 3 as UInt16)?.magnitude, 3_000_000_000)
        XCTAssertNil(Stride(exactly: UInt64.max))
        XCTAssertEqual(Stride.seconds(Int.max).magnitude, .max)
        XCTAssertEqual(Stride.milliseconds(.min).magnitude, .min)
        XCTAssertEqual(Stride.seconds(Double.infinity).magnitude, .max)
        XCTAssertEqual(Stride.seconds(-1e300).magnitude, .min)
    }

    // OpenCombine/OpenCombine f8e6e66 and cx-org/CombineX c8d95ba (issue 44): a stride made from a large
    // DispatchTimeInterval (or Stride.seconds(Int.max)) overflowed instead of clamping.
    func testStrideConversionsFromDispatchTimeInterval() {
        XCTAssertEqual(Stride(.seconds(2)), .seconds(2))
        XCTAssertEqual(Stride(.milliseconds(3)).magnitude, 3_000_000)
        XCTAssertEqual(Stride(.microseconds(4)).magnitude, 4_000)
        XCTAssertEqual(Stride(.nanoseconds(5)).magnitude, 5)
        XCTAssertEqual(Stride(.never).magnitude, .max)
        XCTAssertEqual(Stride(.seconds(.max)).magnitude, .max)
        XCTAssertEqual(Stride.milliseconds(2).timeInterval, .nanoseconds(2_000_000))
    }

    func testStrideArithmetic() {
        XCTAssertEqual(Stride.milliseconds(5) + .milliseconds(7), .milliseconds(12))
        XCTAssertEqual(Stride.milliseconds(5) - .milliseconds(7), .milliseconds(-2))
        XCTAssertEqual(-Stride.seconds(1), .seconds(-1))
        XCTAssertEqual(Stride.milliseconds(100) * 2, .milliseconds(200), "2 is two seconds: * multiplies in seconds")
        XCTAssertEqual(Stride.seconds(3) * 1.5, .milliseconds(4500))
        XCTAssertEqual((Stride.nanoseconds(18) * .microseconds(1)).magnitude, 0, "sub-second products truncate")
        XCTAssertEqual(Stride.seconds(Int.max / 2_000_000_000) * .seconds(1000), .nanoseconds(.max), "clamps")
        var stride = Stride.seconds(1)
        stride += .milliseconds(500)
        stride -= .milliseconds(250)
        stride *= 2
        XCTAssertEqual(stride, .milliseconds(2500))
        XCTAssertLessThan(Stride.microseconds(999), .milliseconds(1))
        XCTAssertEqual(Stride.zero, .nanoseconds(0))
    }

    // OpenCombine/OpenCombine 98f6b6b: advancing or measuring a DispatchQueue time far into the future overflowed.
    func testTimeDistanceAdvanceHashAndCodable() throws {
        let a = Time(DispatchTime(uptimeNanoseconds: 10_000))
        let b = Time(DispatchTime(uptimeNanoseconds: 10_431))
        XCTAssertEqual(a.distance(to: b), .nanoseconds(431))
        XCTAssertEqual(b.distance(to: a), .nanoseconds(-431))
        XCTAssertEqual(a.advanced(by: .nanoseconds(431)), b)
        XCTAssertEqual(b.advanced(by: .nanoseconds(-431)), a)
        XCTAssertEqual(a.distance(to: Time(.distantFuture)), .nanoseconds(.max))
        XCTAssertEqual(a.advanced(by: .nanoseconds(.max)).dispatchTime, .distantFuture)
        XCTAssertLessThan(a, b)
        XCTAssertEqual(Set([a, b, a]).count, 2)
        let data = try JSONEncoder().encode(a)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "10000")
        XCTAssertEqual(try JSONDecoder().decode(Time.self, from: data), a)
        let strideData = try JSONEncoder().encode(Stride.nanoseconds(-42))
        XCTAssertEqual(String(decoding: strideData, as: UTF8.self), #"{"_nanoseconds":-42}"#, "Apple's key")
        XCTAssertEqual(try JSONDecoder().decode(Stride.self, from: strideData), .nanoseconds(-42))
    }
}

extension DispatchQueueSchedulerTests {
    func testRepeatingReturnsAnAnyCancellable() {
        let cancellable = DispatchQueue(label: "repeat").schedule(after: .init(.now() + 3600), interval: 1) {}
        XCTAssertTrue(cancellable is AnyCancellable)
        cancellable.cancel()
    }

    func testDistancesTooLargeForIntAreMaxInBothDirections() {
        typealias Time = DispatchQueue.SchedulerTimeType
        let early = Time(.init(uptimeNanoseconds: 10))
        let late = Time(.init(uptimeNanoseconds: UInt64.max - 1024))
        XCTAssertEqual(early.distance(to: late), .nanoseconds(.max))
        XCTAssertEqual(late.distance(to: early), .nanoseconds(.max), "not .min: as in Combine")
        XCTAssertEqual(Time(.distantFuture).distance(to: early), .nanoseconds(.max))
    }
}

final class DispatchQueueSchedulerConcurrencyTests: XCTestCase {
    func testRepeatingCancelIsIdempotentFromManyThreads() {
        let queue = DispatchQueue(label: "cancel-race")
        let count = LockedBox(0)
        let firstRun = expectation(description: "first run")
        firstRun.assertForOverFulfill = false
        let cancellable = queue.schedule(after: queue.now, interval: .milliseconds(1)) {
            count.withLock { $0 += 1 }
            firstRun.fulfill()
        }
        wait(for: [firstRun], timeout: 30)
        // The cancellable is used concurrently on purpose: that is what is under test.
        nonisolated(unsafe) let shared = cancellable
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            shared.cancel()
            shared.cancel()
        }
        let settled = queue.sync { count.withLock { $0 } }
        let later = expectation(description: "later")
        queue.schedule(after: queue.now.advanced(by: .milliseconds(30))) { later.fulfill() }
        wait(for: [later], timeout: 30)
        XCTAssertEqual(count.withLock { $0 }, settled)
        _ = cancellable
    }

    func testConcurrentSchedulingFromManyThreadsRunsEveryAction() {
        let queue = DispatchQueue(label: "many")
        let count = LockedBox(0)
        let all = expectation(description: "all ran")
        all.expectedFulfillmentCount = 8 * 50
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for i in 0..<50 {
                let action = {
                    count.withLock { $0 += 1 }
                    all.fulfill()
                }
                if i.isMultiple(of: 2) {
                    queue.schedule(action)
                } else {
                    queue.schedule(after: queue.now.advanced(by: .milliseconds(i % 7)), action)
                }
            }
        }
        wait(for: [all], timeout: 60)
        XCTAssertEqual(count.withLock { $0 }, 400)
    }
}
