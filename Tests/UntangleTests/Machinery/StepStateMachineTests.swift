import XCTest

@testable import Untangle

/// The step subscription's phases (awaiting, live, finishing, ended), transition by transition, as a pure state
/// machine: no threads, no callouts.
final class StepStateMachineTests: XCTestCase {
    private typealias Machine = StepStateMachine<String, Int>

    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private func downstream(_ action: Machine.ValueAction) -> String? {
        if case .deliver(let downstream) = action { return downstream }
        return nil
    }

    private func isDrop(_ action: Machine.ValueAction) -> Bool {
        if case .drop = action { return true }
        return false
    }

    private func live() -> (Machine, Token) {
        var machine = Machine(downstream: "down", onEnd: nil)
        let token = Token()
        XCTAssertEqual(machine.subscribed(token), "down")
        return (machine, token)
    }

    func testTheSubscriptionMovesAwaitingToLiveAndASecondOneIsRefused() {
        var (machine, token) = live()
        XCTAssertNil(machine.subscribed(Token()), "a second subscription is cancelled")
        guard case .forward(let forwarded) = machine.request() else { return XCTFail("requests go upstream") }
        XCTAssertTrue(forwarded as? Token === token)
        XCTAssertEqual(downstream(machine.valueArrived(early: .trap)), "down")
    }

    func testAValueBeforeTheSubscriptionFollowsTheOperatorsBehaviour() {
        let machine = Machine(downstream: "down", onEnd: nil)
        XCTAssertEqual(downstream(machine.valueArrived(early: .deliver)), "down")
        XCTAssertTrue(isDrop(machine.valueArrived(early: .ignore)))
        guard case .trap = machine.valueArrived(early: .trap) else { return XCTFail("strict operators trap") }
        guard case .early = machine.request() else { return XCTFail("a request before the subscription is early") }
    }

    func testAnEarlyCompletionIsDeliveredIgnoredOrTrappedPerBehaviour() {
        var delivering = Machine(downstream: "down", onEnd: nil)
        XCTAssertEqual(downstream(delivering.completed(early: .deliver).action), "down")
        XCTAssertNil(delivering.subscribed(Token()), "ended: a late subscription is cancelled")
        var ignoring = Machine(downstream: "down", onEnd: nil)
        XCTAssertTrue(isDrop(ignoring.completed(early: .ignore).action))
        XCTAssertEqual(ignoring.subscribed(Token()), "down", "still awaiting")
        var strict = Machine(downstream: "down", onEnd: nil)
        guard case .trap = strict.completed(early: .trap).action else { return XCTFail() }
    }

    func testAnEndingStepHandsBackTheUpstreamAndTheDownstreamThenDropsEverything() {
        var (machine, token) = live()
        let ending = machine.end()
        XCTAssertTrue(ending.upstream as? Token === token)
        XCTAssertEqual(ending.downstream, "down")
        XCTAssertTrue(isDrop(machine.valueArrived(early: .deliver)))
        XCTAssertTrue(isDrop(machine.completed(early: .deliver).action))
        guard case .ignore = machine.request() else { return XCTFail("no request after the end") }
        XCTAssertNil(machine.end().downstream, "ending twice hands back nothing")
    }

    func testTheLastValueKeepsTheDownstreamUntilDeliveredThenFinishes() {
        var (machine, token) = live()
        let last = machine.lastValueWillGo()
        XCTAssertTrue(last.cancel as? Token === token, "the upstream is cancelled before the last value goes")
        XCTAssertTrue(last.deliver)
        XCTAssertTrue(isDrop(machine.valueArrived(early: .deliver)), "finishing: later values are dropped")
        XCTAssertTrue(isDrop(machine.completed(early: .deliver).action), "and the upstream's completion too")
        XCTAssertEqual(machine.snapshot.downstream, "down")
        XCTAssertTrue(machine.snapshot.ended)
        XCTAssertEqual(machine.lastValueDelivered().downstream, "down", "the .finished follows the value")
        XCTAssertNil(machine.snapshot.downstream)
    }

    func testACancelInsideTheLastValueTakesTheDownstreamAndTheFinish() {
        var (machine, _) = live()
        _ = machine.lastValueWillGo()
        XCTAssertEqual(machine.cancelled(ignoringEarly: false).downstream, "down")
        XCTAssertNil(machine.lastValueDelivered().downstream, "nothing after the subscriber's own cancel")
    }

    func testALastValueAfterACancelIsNotDelivered() {
        var (machine, _) = live()
        _ = machine.cancelled(ignoringEarly: false)
        let last = machine.lastValueWillGo()
        XCTAssertNil(last.cancel)
        XCTAssertFalse(last.deliver)
    }

    func testTheEndHookIsHandedBackOnceWhicheverEndComesFirst() {
        var ran = 0
        var machine = Machine(downstream: "down", onEnd: { ran += 1 })
        _ = machine.subscribed(Token())
        let completion = machine.completed(early: .trap)
        XCTAssertEqual(downstream(completion.action), "down")
        completion.ending.onEnd?()
        machine.cancelled(ignoringEarly: false).onEnd?()
        XCTAssertEqual(ran, 1)

        var finishing = Machine(downstream: "down", onEnd: { ran += 1 })
        _ = finishing.lastValueWillGo()
        finishing.lastValueDelivered().onEnd?()
        finishing.cancelled(ignoringEarly: false).onEnd?()
        XCTAssertEqual(ran, 2)
    }

    func testACancelBeforeTheSubscriptionIsIgnoredOrEndsPerBehaviour() {
        var lenient = Machine(downstream: "down", onEnd: nil)
        XCTAssertNil(lenient.cancelled(ignoringEarly: true).downstream)
        XCTAssertEqual(lenient.subscribed(Token()), "down", "the subscription, when it comes, is accepted")
        var strict = Machine(downstream: "down", onEnd: nil)
        XCTAssertEqual(strict.cancelled(ignoringEarly: false).downstream, "down")
        XCTAssertNil(strict.subscribed(Token()), "ended: the late subscription is cancelled")
    }

    func testTheMirrorSnapshotAndTheLastInput() {
        var machine = Machine(downstream: "down", onEnd: nil)
        XCTAssertNil(machine.snapshot.upstream)
        XCTAssertFalse(machine.snapshot.ended)
        let token = Token()
        _ = machine.subscribed(token)
        XCTAssertTrue(machine.snapshot.upstream as? Token === token)
        XCTAssertNil(machine.record(1))
        XCTAssertEqual(machine.record(2), 1, "the replaced value is handed back, to be released after unlocking")
        XCTAssertEqual(machine.snapshot.lastInput, 2)
        _ = machine.cancelled(ignoringEarly: false)
        XCTAssertNil(machine.snapshot.upstream)
        XCTAssertTrue(machine.snapshot.ended)
    }
}
