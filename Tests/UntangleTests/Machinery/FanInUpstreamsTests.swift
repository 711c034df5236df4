import Testing
import XCTest

@testable import Untangle

/// The upstreams of a fan-in numbered up front (merge, amb, zip, combineLatest), decision by decision.
final class FanInUpstreamsTests: XCTestCase {
    func testALateSubscriptionIsAskedForTheTotalSoFarAndASecondOneIsRefused() {
        var upstreams = FanInUpstreams(count: 2)
        let a = LoggingSubscription()
        XCTAssertEqual(upstreams.admit(a, at: 0), Subscribers.Demand.none)
        XCTAssertEqual(identities(upstreams.request(.max(2))), identities(a), "only the subscribed upstream")
        XCTAssertEqual(identities(upstreams.request(.max(1))), identities(a))
        let b = LoggingSubscription()
        XCTAssertEqual(upstreams.admit(b, at: 1), .max(3), "the total so far")
        XCTAssertNil(upstreams.admit(LoggingSubscription(), at: 1), "a second subscription")
        XCTAssertEqual(identities(upstreams.request(.max(1))), identities(a, b))
        XCTAssertEqual(upstreams.requested, .max(4))
    }

    func testARequestLeavesOutTheSenderWhenAsked() {
        var upstreams = FanInUpstreams(count: 3)
        let subscriptions = (0..<3).map { _ in LoggingSubscription() }
        for (index, subscription) in subscriptions.enumerated() { _ = upstreams.admit(subscription, at: index) }
        XCTAssertEqual(
            identities(upstreams.request(.max(1), except: 1)), identities(subscriptions[0], subscriptions[2]))
    }

    func testEndingOneThenAllReturnsWhatWasHeldOnceAndRefusesLateSubscriptions() {
        var upstreams = FanInUpstreams(count: 3)
        let a = LoggingSubscription()
        let b = LoggingSubscription()
        _ = upstreams.admit(a, at: 0)
        _ = upstreams.admit(b, at: 1)
        XCTAssertTrue(isSame(upstreams.end(at: 0), a))
        XCTAssertNil(upstreams.end(at: 0), "already ended")
        XCTAssertTrue(upstreams.isEnded(at: 0))
        XCTAssertNil(upstreams.admit(LoggingSubscription(), at: 0), "after its end")
        XCTAssertEqual(identities(upstreams.endAll()), identities(b), "upstream 2 never subscribed")
        XCTAssertNil(upstreams.admit(LoggingSubscription(), at: 2), "after the operator ended")
        XCTAssertEqual(upstreams.request(.max(1)).count, 0)
    }

    func testEndingAllButTheWinnerKeepsItsSubscription() {
        var upstreams = FanInUpstreams(count: 3)
        let subscriptions = (0..<3).map { _ in LoggingSubscription() }
        for (index, subscription) in subscriptions.enumerated() { _ = upstreams.admit(subscription, at: index) }
        XCTAssertEqual(identities(upstreams.endAll(except: 1)), identities(subscriptions[0], subscriptions[2]))
        XCTAssertEqual(identities(upstreams.request(.max(1))), identities(subscriptions[1]))
        XCTAssertFalse(upstreams.isEnded(at: 1))
    }

    func testTheEndingCancelsTheOthersReleasesTheCompletedOneAndHappensOnce() {
        var upstreams = FanInUpstreams(count: 3)
        let subscriptions = (0..<3).map { _ in LoggingSubscription() }
        for (index, subscription) in subscriptions.enumerated() { _ = upstreams.admit(subscription, at: index) }
        let ending = upstreams.ending(completed: 1)
        XCTAssertEqual(identities(ending?.cancel ?? []), identities(subscriptions[0], subscriptions[2]))
        XCTAssertTrue(isSame(ending?.released, subscriptions[1]), "the completed one's subscription, released")
        XCTAssertTrue((0..<3).allSatisfy { upstreams.isEnded(at: $0) })
        XCTAssertNil(upstreams.ending(), "every upstream had already ended")
    }
}

/// The index a fan-in's upstreams can never be asked about, trapped with its message (in a child process).
@Suite struct FanInUpstreamsTrapTests {
    @Test func anIndexOutOfRangeTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var upstreams = FanInUpstreams(count: 2)
            _ = upstreams.admit(LoggingSubscription(), at: 2)
        }
        #expect(result?.standardErrorText.contains("FanInUpstreams: admit(at: 2) with 2 upstreams") == true)
    }
}
