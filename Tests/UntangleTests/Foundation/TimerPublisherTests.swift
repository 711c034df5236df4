import Foundation
import Untangle
import UntangleSync
import XCTest

/// Counts ticks and signals when a target count is reached; safe from any thread.
private final class TickCounter: @unchecked Sendable {
    private let state = LockedBox<(count: Int, dates: [Date], waiters: [(Int, DispatchSemaphore)])>((0, [], []))

    var count: Int { state.withLock { $0.count } }
    var dates: [Date] { state.withLock { $0.dates } }

    func tick(_ date: Date) {
        let ready = state.withLock { state -> [DispatchSemaphore] in
            state.count += 1
            state.dates.append(date)
            let ready = state.waiters.filter { $0.0 <= state.count }.map(\.1)
            state.waiters.removeAll { $0.0 <= state.count }
            return ready
        }
        ready.forEach { $0.signal() }
    }

    /// Waits until at least `count` ticks were counted (30 s watchdog); returns whether they were.
    @discardableResult
    func wait(for count: Int, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let already = state.withLock { state -> Bool in
            if state.count >= count { return true }
            state.waiters.append((count, semaphore))
            return false
        }
        if already { return true }
        let ok = semaphore.wait(timeout: .now() + 30) == .success
        XCTAssertTrue(ok, "watchdog: fewer than \(count) ticks within 30 s", file: file, line: line)
        return ok
    }
}

final class TimerPublisherTests: XCTestCase {
    func testPublishKeepsItsParametersButDropsTheTolerance() {
        let publisher = Timer.publish(every: 2, tolerance: 0.5, on: .main, in: .common)
        XCTAssertEqual(publisher.interval, 2)
        XCTAssertNil(publisher.tolerance, "as in Combine, publish(every:tolerance:...) does not pass the tolerance on")
        XCTAssertEqual(Timer.TimerPublisher(interval: 1, tolerance: 0.5, runLoop: .main, mode: .default).tolerance, 0.5)
        XCTAssertTrue(publisher.runLoop === RunLoop.main)
        XCTAssertEqual(publisher.mode, .common)
        XCTAssertNil(publisher.options)
        XCTAssertNil(Timer.TimerPublisher(interval: 1, runLoop: .main, mode: .default).tolerance)
    }

    func testNothingIsPublishedBeforeConnect() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let publisher = Timer.publish(every: 0.005, on: loop.runLoop, in: .default)
        let ticks = TickCounter()
        let cancellable = publisher.sink { ticks.tick($0) }
        loop.letRun(for: 0.05)
        XCTAssertEqual(ticks.count, 0)
        cancellable.cancel()
    }

    func testConnectPublishesDatesOnTheRunLoopThread() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let thread = loop.thread!
        let publisher = Timer.publish(every: 0.005, on: loop.runLoop, in: .default)
        let ticks = TickCounter()
        let wrongThread = LockedBox(0)
        let cancellable = publisher.sink { date in
            if Thread.current !== thread { wrongThread.withLock { $0 += 1 } }
            ticks.tick(date)
        }
        let connection = publisher.connect()
        ticks.wait(for: 3)
        connection.cancel()
        XCTAssertEqual(wrongThread.withLock { $0 }, 0)
        let dates = ticks.dates
        XCTAssertEqual(dates, dates.sorted(), "dates in firing order")
        cancellable.cancel()
    }

    func testEachSubscriberGetsDatesPerItsDemand() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let publisher = Timer.publish(every: 0.005, on: loop.runLoop, in: .default)
        let limited = Recorder<Date, Never>(initialDemand: .max(2))
        publisher.subscribe(limited)
        let ticks = TickCounter()
        let unlimited = publisher.sink { ticks.tick($0) }
        let connection = publisher.connect()
        ticks.wait(for: 6)
        // Read on the run loop's thread, where no tick can be in progress.
        loop.sync { XCTAssertEqual(limited.values.count, 2) }
        limited.request(.max(1))
        ticks.wait(for: ticks.count + 3)
        loop.sync { XCTAssertEqual(limited.values.count, 3, "a missed tick is not replayed; one more date") }
        connection.cancel()
        unlimited.cancel()
        limited.cancel()
    }

    func testCancellingTheConnectionStopsTheTicksAndConnectStartsThemAgain() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let publisher = Timer.publish(every: 0.005, on: loop.runLoop, in: .default)
        let ticks = TickCounter()
        let cancellable = publisher.sink { ticks.tick($0) }
        let connection = publisher.connect()
        let cancelConnection = AnyCancellable(connection)
        ticks.wait(for: 2)
        let settled = LockedBox(0)
        // Cancelled on the run loop's thread: no tick is in progress there, so the count is final.
        loop.sync {
            cancelConnection.cancel()
            settled.withLock { $0 = ticks.count }
        }
        loop.letRun(for: 0.05)
        XCTAssertEqual(ticks.count, settled.withLock { $0 }, "no tick after the connection's cancel() returned")
        let again = publisher.connect()
        XCTAssertFalse(again as AnyObject === connection as AnyObject, "a new connection")
        ticks.wait(for: settled.withLock { $0 } + 2)
        again.cancel()
        cancellable.cancel()
    }

    func testConnectWhileConnectedReturnsTheCurrentConnection() {
        let publisher = Timer.publish(every: 3600, on: .main, in: .default)
        let first = publisher.connect()
        let second = publisher.connect()
        XCTAssertTrue(first as AnyObject === second as AnyObject)
        first.cancel()
        second.cancel()
    }

    func testAutoconnectStartsOnSubscriptionAndStopsOnCancel() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let publisher = Timer.publish(every: 0.005, on: loop.runLoop, in: .default)
        // A plain subscriber watches the timer itself; it does not connect anything.
        let watched = TickCounter()
        let watcher = publisher.sink { watched.tick($0) }
        loop.letRun(for: 0.03)
        XCTAssertEqual(watched.count, 0, "not connected yet")
        let ticks = TickCounter()
        let cancellable = AnyCancellable(publisher.autoconnect().sink { ticks.tick($0) })
        ticks.wait(for: 3)
        let settled = LockedBox(0)
        // The last autoconnect subscriber leaves (on the run loop's thread: no tick in progress): the timer stops.
        loop.sync {
            cancellable.cancel()
            settled.withLock { $0 = watched.count }
        }
        loop.letRun(for: 0.05)
        XCTAssertEqual(watched.count, settled.withLock { $0 })
        watcher.cancel()
    }

    func testSubscriberIsReleasedAfterCancel() {
        let publisher = Timer.publish(every: 3600, on: .main, in: .default)
        assertSubscriptionReleasesSubscriber(publisher) { $0.cancel() }
    }
}

/// Connecting, subscribing and cancelling from several threads while the timer ticks.
final class TimerPublisherConcurrencyTests: XCTestCase {
    func testConcurrentConnectsMakeOneConnection() {
        for _ in 0..<100 {
            let publisher = Timer.publish(every: 3600, on: .main, in: .default)
            let connections = LockedBox<[ObjectIdentifier]>([])
            runConcurrently(threads: 4) { _ in
                let connection = publisher.connect()
                connections.withLock { $0.append(ObjectIdentifier(connection as AnyObject)) }
            }
            let all = connections.withLock { $0 }
            XCTAssertEqual(all.count, 4)
            XCTAssertEqual(Set(all).count, 1)
            publisher.connect().cancel()
        }
    }

    func testSubscribersComingAndGoingWhileTicking() {
        let loop = DedicatedRunLoop()
        defer { loop.stop() }
        let publisher = Timer.publish(every: 0.001, on: loop.runLoop, in: .default)
        let ticks = TickCounter()
        let steady = publisher.sink { ticks.tick($0) }
        let connection = publisher.connect()
        runConcurrently(threads: 3) { _ in
            for _ in 0..<200 {
                let gauge = OverlapGauge()
                let cancellable = publisher.sink { _ in
                    gauge.enter()
                    gauge.leave()
                }
                cancellable.cancel()
                XCTAssertLessThanOrEqual(gauge.maximum, 1)
            }
        }
        ticks.wait(for: 3)
        connection.cancel()
        steady.cancel()
    }
}

extension TimerPublisherTests {
    func testASubscriptionDoesNotDescribeItself() throws {
        let publisher = Timer.TimerPublisher(interval: 3600, runLoop: .main, mode: .default)
        let recorder = Recorder<Date, Never>(initialDemand: nil)
        publisher.subscribe(recorder)
        let subscription = try XCTUnwrap(recorder.subscription)
        XCTAssertFalse(subscription is CustomStringConvertible)
        XCTAssertFalse(subscription is CustomPlaygroundDisplayConvertible)
        XCTAssertFalse(subscription is CustomReflectable)
        XCTAssertFalse(subscription is NSObject)
        recorder.cancel()
    }
}
