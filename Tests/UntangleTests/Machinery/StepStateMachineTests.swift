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
        XCTAssertEqual(machine.valueArrived(early: .trap, name: "Op"), "down")
    }

    // (`.trap` stops the program, as Combine's strict operators do: not testable in-process.)
    func testAValueBeforeTheSubscriptionIsDeliveredOrIgnoredPerBehaviour() {
        var machine = Machine(downstream: "down", onEnd: nil)
        XCTAssertEqual(machine.valueArrived(early: .deliver, name: "Op"), "down")
        XCTAssertNil(machine.valueArrived(early: .ignore, name: "Op"))
        guard case .early = machine.request() else { return XCTFail("a request before the subscription is early") }
    }

    func testAnEarlyCompletionIsDeliveredOrIgnoredPerBehaviour() {
        var delivering = Machine(downstream: "down", onEnd: nil)
        XCTAssertEqual(delivering.completed(early: .deliver, name: "Op").downstream, "down")
        XCTAssertNil(delivering.subscribed(Token()), "ended: a late subscription is cancelled")
        var ignoring = Machine(downstream: "down", onEnd: nil)
        XCTAssertNil(ignoring.completed(early: .ignore, name: "Op").downstream)
        XCTAssertEqual(ignoring.subscribed(Token()), "down", "still awaiting")
    }

    func testAnEndingStepHandsBackTheUpstreamAndTheDownstreamThenDropsEverything() {
        var (machine, token) = live()
        let ending = machine.end()
        XCTAssertTrue(ending.upstream as? Token === token)
        XCTAssertEqual(ending.downstream, "down")
        XCTAssertNil(machine.valueArrived(early: .deliver, name: "Op"))
        XCTAssertNil(machine.completed(early: .deliver, name: "Op").downstream)
        guard case .ignore = machine.request() else { return XCTFail("no request after the end") }
        XCTAssertNil(machine.end().downstream, "ending twice hands back nothing")
    }

    func testTheLastValueKeepsTheDownstreamUntilDeliveredThenFinishes() {
        var (machine, token) = live()
        let last = machine.lastValueWillGo()
        XCTAssertTrue(last.cancel as? Token === token, "the upstream is cancelled before the last value goes")
        XCTAssertTrue(last.deliver)
        XCTAssertNil(machine.valueArrived(early: .deliver, name: "Op"), "finishing: later values are dropped")
        XCTAssertNil(machine.completed(early: .deliver, name: "Op").downstream, "and the upstream's completion too")
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
        let completion = machine.completed(early: .trap, name: "Op")
        XCTAssertEqual(completion.downstream, "down")
        completion.onEnd?()
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
