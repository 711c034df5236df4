import Foundation
import Untangle
import UntangleSync
import XCTest

private let ping = Notification.Name("UntangleTests.ping")
private let pong = Notification.Name("UntangleTests.pong")

final class NotificationCenterPublisherTests: XCTestCase {
    func testDeliversPostedNotificationsOfItsNameOnly() {
        let center = NotificationCenter()
        let recorder = Recorder<Notification, Never>()
        center.publisher(for: ping).subscribe(recorder)
        center.post(name: ping, object: nil, userInfo: ["n": 1])
        center.post(name: pong, object: nil)
        center.post(name: ping, object: nil, userInfo: ["n": 2])
        XCTAssertEqual(recorder.values.map { $0.userInfo?["n"] as? Int }, [1, 2])
        XCTAssertEqual(recorder.events.count, 3, "subscription and two values, no completion")
    }

    func testObjectFilter() {
        let center = NotificationCenter()
        let sender = NSObject()
        let recorder = Recorder<Notification, Never>()
        center.publisher(for: ping, object: sender).subscribe(recorder)
        center.post(name: ping, object: NSObject())
        center.post(name: ping, object: sender)
        XCTAssertEqual(recorder.values.count, 1)
        XCTAssertTrue(recorder.values.first?.object as AnyObject? === sender)
    }

    func testNotificationsBeyondDemandAreDropped() {
        let center = NotificationCenter()
        let recorder = Recorder<Notification, Never>(initialDemand: .max(1))
        center.publisher(for: ping).subscribe(recorder)
        for n in 1...3 { center.post(name: ping, object: nil, userInfo: ["n": n]) }
        recorder.request(.max(1))
        XCTAssertEqual(recorder.values.map { $0.userInfo?["n"] as? Int }, [1], "dropped ones are not replayed")
        center.post(name: ping, object: nil, userInfo: ["n": 4])
        XCTAssertEqual(recorder.values.map { $0.userInfo?["n"] as? Int }, [1, 4])
    }

    func testDemandReturnedFromReceiveCounts() {
        let center = NotificationCenter()
        let recorder = Recorder<Notification, Never>(initialDemand: .max(1), onValue: { _, _ in .max(1) })
        center.publisher(for: ping).subscribe(recorder)
        for _ in 1...3 { center.post(name: ping, object: nil) }
        XCTAssertEqual(recorder.values.count, 3)
    }

    func testCancelRemovesTheObserverAndReleasesTheSubscriber() {
        let center = NotificationCenter()
        let recorder = Recorder<Notification, Never>()
        center.publisher(for: ping).subscribe(recorder)
        center.post(name: ping, object: nil)
        recorder.cancel()
        center.post(name: ping, object: nil)
        XCTAssertEqual(recorder.values.count, 1)
        assertSubscriptionReleasesSubscriber(center.publisher(for: ping)) { $0.cancel() }
    }

    func testCancelFromInsideReceiveSubscription() {
        let center = NotificationCenter()
        let recorder = Recorder<Notification, Never>(onSubscription: { _, subscription in subscription.cancel() })
        center.publisher(for: ping).subscribe(recorder)
        center.post(name: ping, object: nil)
        XCTAssertEqual(recorder.values.count, 0)
    }

    func testEquatableAndProperties() {
        let center = NotificationCenter()
        let object = NSObject()
        let publisher = NotificationCenter.Publisher(center: center, name: ping, object: object)
        XCTAssertTrue(publisher.center === center)
        XCTAssertEqual(publisher.name, ping)
        XCTAssertTrue(publisher.object === object)
        XCTAssertEqual(publisher, center.publisher(for: ping, object: object))
        XCTAssertNotEqual(publisher, center.publisher(for: ping))
        XCTAssertNotEqual(publisher, NotificationCenter().publisher(for: ping, object: object))
    }

    func testDeliveredOnThePostingThread() {
        // Schedulers.md row: NotificationCenter.Publisher delivers on the posting thread.
        let center = NotificationCenter()
        let deliveredOn = LockedBox<ObjectIdentifier?>(nil)
        let cancellable = center.publisher(for: ping).sink { _ in
            deliveredOn.withLock { $0 = ObjectIdentifier(Thread.current) }
        }
        let postedOn = LockedBox<ObjectIdentifier?>(nil)
        withWatchdog("post from another thread") {
            postedOn.withLock { $0 = ObjectIdentifier(Thread.current) }
            center.post(name: ping, object: nil)
        }
        XCTAssertNotNil(deliveredOn.withLock { $0 })
        XCTAssertEqual(deliveredOn.withLock { $0 }, postedOn.withLock { $0 })
        cancellable.cancel()
    }

    func testDefaultCenterPublisherWithSink() {
        var names: [Notification.Name] = []
        let cancellable = NotificationCenter.default.publisher(for: pong).sink { names.append($0.name) }
        NotificationCenter.default.post(name: pong, object: nil)
        cancellable.cancel()
        NotificationCenter.default.post(name: pong, object: nil)
        XCTAssertEqual(names, [pong])
    }
}

/// Notifications posted from several threads at once, and cancellation racing posts.
final class NotificationCenterPublisherConcurrencyTests: XCTestCase {
    func testPostsFromManyThreadsAreAllDeliveredOneAtATime() {
        let center = NotificationCenter()
        let gauge = OverlapGauge()
        let count = LockedBox(0)
        let cancellable = center.publisher(for: ping).sink { _ in
            gauge.enter()
            count.withLock { $0 += 1 }
            gauge.leave()
        }
        runConcurrently(threads: 4) { _ in
            for _ in 0..<1_000 { center.post(name: ping, object: nil) }
        }
        XCTAssertEqual(count.withLock { $0 }, 4_000)
        XCTAssertEqual(gauge.maximum, 1)
        cancellable.cancel()
    }

    func testNothingIsDeliveredAfterCancelReturns() {
        for _ in 0..<50 {
            let center = NotificationCenter()
            let cancelled = LockedBox(false)
            let late = LockedBox(0)
            let cancellable = center.publisher(for: ping).sink { _ in
                if cancelled.withLock({ $0 }) { late.withLock { $0 += 1 } }
            }
            runConcurrently(threads: 3) { thread in
                if thread == 0 {
                    cancellable.cancel()
                    cancelled.withLock { $0 = true }
                } else {
                    for _ in 0..<200 { center.post(name: ping, object: nil) }
                }
            }
            // A delivery that had already started when cancel() was called may still finish; none may start after.
            // Posts after the loop prove it: none of them is delivered.
            let before = late.withLock { $0 }
            for _ in 0..<10 { center.post(name: ping, object: nil) }
            XCTAssertEqual(late.withLock { $0 }, before)
        }
    }
}
