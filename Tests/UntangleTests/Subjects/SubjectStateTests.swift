import XCTest

@testable import Untangle

/// A subject's own state (PassthroughSubject, CurrentValueSubject), tested decision by decision: open or completed,
/// upstream subscriptions waiting for the first demand or asked for `.unlimited`, the current value. Each
/// subscriber's delivery is its emitter's (EmitterStateMachineTests).
final class SubjectStateTests: XCTestCase {
    typealias State = SubjectCore<Int, TestError>.State
    typealias Conduit = SubjectConduit<Int, TestError>

    func testUpstreamSubscriptionsWaitForTheFirstDemandThenAreAskedAtOnce() {
        var state = State(current: nil, upstreamDemand: .awaitingFirstDemand)
        let first = LoggingSubscription()
        let (request, dropped) = state.addUpstream(first)
        XCTAssertFalse(request, "kept, not asked, until a subscriber asks for something")
        XCTAssertTrue(dropped.isEmpty)
        XCTAssertEqual(state.takeFirstDemand().map(\.combineIdentifier), [first.combineIdentifier])
        guard case .requested = state.upstreamDemand else { return XCTFail() }
        XCTAssertTrue(state.takeFirstDemand().isEmpty, "the first demand is taken once")
        XCTAssertTrue(state.addUpstream(LoggingSubscription()).request, "later ones are asked when handed over")
    }

    func testASubjectThatDoesNotWaitAsksEveryUpstreamSubscriptionAtOnce() {
        var state = State(current: nil, upstreamDemand: .requested)
        XCTAssertTrue(state.addUpstream(LoggingSubscription()).request)
        XCTAssertTrue(state.takeFirstDemand().isEmpty)
    }

    func testAValueGoesToTheSubscribersAndReplacesTheCurrentOne() {
        var passthrough = State(current: nil, upstreamDemand: .requested)
        let conduit = Conduit()
        passthrough.conduits.append(conduit)
        let (conduits, replaced) = passthrough.send(1)
        XCTAssertEqual(conduits.count, 1)
        XCTAssertTrue(conduits.first === conduit)
        XCTAssertNil(replaced, "no current value to replace")
        XCTAssertNil(passthrough.current)

        var currentValue = State(current: 0, upstreamDemand: .requested)
        XCTAssertEqual(currentValue.send(1).replaced, 0)
        XCTAssertEqual(currentValue.current, 1)
    }

    func testTheCompletionTakesTheSubscribersOnceAndStopsValues() {
        var state = State(current: 0, upstreamDemand: .requested)
        state.conduits = [Conduit(), Conduit()]
        XCTAssertEqual(state.complete(.failure(TestError(3))).count, 2)
        XCTAssertTrue(state.conduits.isEmpty)
        XCTAssertEqual(state.completion, .failure(TestError(3)))
        XCTAssertTrue(state.complete(.finished).isEmpty, "a subject completes once")
        let (conduits, replaced) = state.send(1)
        XCTAssertTrue(conduits.isEmpty)
        XCTAssertNil(replaced, "a completed subject's current value stays")
        XCTAssertEqual(state.setCurrent(2).replaced, 0, "but setting it still replaces it (as Combine)")
        XCTAssertEqual(state.current, 2)
        XCTAssertTrue(state.setCurrent(3).0.isEmpty, "and reaches nobody")
        XCTAssertFalse(state.addUpstream(LoggingSubscription()).dropped.count > 0)
        XCTAssertEqual(state.upstreams.all.count, 1, "an upstream handed over after the completion is kept")
    }

    func testACancelledSubscriberLeavesOnce() {
        var state = State(current: nil, upstreamDemand: .requested)
        let (first, second) = (Conduit(), Conduit())
        state.conduits = [first, second]
        XCTAssertTrue(state.remove(first) === first)
        XCTAssertNil(state.remove(first), "gone already")
        XCTAssertEqual(state.conduits.count, 1)
        XCTAssertTrue(state.conduits.first === second)
    }
}
