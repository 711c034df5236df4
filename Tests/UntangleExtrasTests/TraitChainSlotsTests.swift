import Untangle
import XCTest

@testable import UntangleExtras

/// What a trait chain (Single/Maybe `flatMap`, Completable `andThen`) does with the subscriptions its two stages
/// receive: each kept once and asked for `.unlimited`; a second one, or one arriving after the chain was cancelled, is
/// cancelled and asked nothing (Reactive Streams' rule 2.5, as `Subscribers.Sink`).
final class TraitChainSlotsTests: XCTestCase {
    func testEachStagesFirstSubscriptionIsKeptAndRequestedThenCancelledOnce() {
        let slots = TraitChainSlots()
        let outer = LoggingSubscription()
        let inner = LoggingSubscription()
        slots.adopt(outer, as: .outer)
        slots.adopt(inner, as: .inner)
        XCTAssertEqual(outer.log, ["request(unlimited)"])
        XCTAssertEqual(inner.log, ["request(unlimited)"])
        slots.cancel()
        slots.cancel()
        XCTAssertEqual(outer.log, ["request(unlimited)", "cancel"])
        XCTAssertEqual(inner.log, ["request(unlimited)", "cancel"])
    }

    func testASecondSubscriptionForAStageIsCancelledAndTheFirstKept() {
        let slots = TraitChainSlots()
        let first = LoggingSubscription()
        let second = LoggingSubscription()
        slots.adopt(first, as: .outer)
        slots.adopt(second, as: .outer)
        XCTAssertEqual(first.log, ["request(unlimited)"])
        XCTAssertEqual(second.log, ["cancel"])
        slots.cancel()
        XCTAssertEqual(first.log, ["request(unlimited)", "cancel"])
        XCTAssertEqual(second.log, ["cancel"])
    }

    func testASubscriptionArrivingAfterTheChainWasCancelledIsCancelledAndAskedNothing() {
        let slots = TraitChainSlots()
        slots.cancel()
        let late = LoggingSubscription()
        slots.adopt(late, as: .inner)
        XCTAssertEqual(late.log, ["cancel"])
    }
}
