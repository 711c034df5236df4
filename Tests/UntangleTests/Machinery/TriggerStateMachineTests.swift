import XCTest

@testable import Untangle

/// The trigger skeleton's turn (unsubscribed, idle, calling, completing, ended) and its counted demand, transition
/// by transition, with a scripted operator: no threads, no callouts.
final class TriggerStateMachineTests: XCTestCase {
    private final class Token: Subscription, @unchecked Sendable {
        func request(_ demand: Subscribers.Demand) {}
        func cancel() {}
    }

    private typealias Down = Recorder<Int, TestError>
    private let me = ThreadID.current
    private let other = ThreadID(bits: 1 << 20)!

    // MARK: Scripted operators

    private protocol Script {
        static var start: TriggerStart { get }
        static var demand: TriggerDemand { get }
    }
    private enum PassThrough: Script {
        static var start: TriggerStart { .downstreamThenTriggerThenUpstream }
        static var demand: TriggerDemand { .passThrough }
    }
    private enum WithUpstream: Script {
        static var start: TriggerStart { .triggerThenUpstreamWithDownstream }
        static var demand: TriggerDemand { .passThrough }
    }
    private enum CountedAll: Script {
        static var start: TriggerStart { .downstreamThenTriggerThenUpstream }
        static var demand: TriggerDemand { .counted(.all) }
    }
    private enum CountedLatest: Script {
        static var start: TriggerStart { .downstreamThenUpstreamThenTrigger }
        static var demand: TriggerDemand { .counted(.latest) }
    }

    /// Delivers every upstream value; answers each trigger value with `next`; forwards requests to `forward`.
    private struct Scripted<S: Script>: TriggerOperator {
        typealias Input = Int
        typealias Signal = Void
        typealias SignalFailure = Never
        typealias Output = Int
        typealias Failure = TestError

        static var start: TriggerStart { S.start }
        static var demand: TriggerDemand { S.demand }

        var next = TriggerEffects<Self>()
        var forward: Subscription?
        var requests: [Subscribers.Demand] = []

        func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission { .admitted(requesting: .none) }
        func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission { .admitted(requesting: .max(1)) }
        mutating func requested(_ demand: Subscribers.Demand) -> Subscription? {
            requests.append(demand)
            return forward
        }
        func upstreamSent(_ input: Int) -> TriggerValueDecision<Int, Never> { .deliver(input) }
        func upstreamCompleted(_ completion: Subscribers.Completion<TestError>) -> TriggerEffects<Self> {
            TriggerEffects(completion: completion, endsDownstream: true)
        }
        func triggerSent(_ signal: Void) -> TriggerEffects<Self> { next }
        func triggerCompleted(_ completion: Subscribers.Completion<Never>) -> TriggerEffects<Self> { TriggerEffects() }
        func cancelled() -> TriggerEffects<Self> { TriggerEffects(cancelUpstream: forward) }
    }

    private func machine<S: Script>(_: S.Type, subscribed: Bool = true) -> (
        TriggerStateMachine<Scripted<S>, Down>, Down
    ) {
        let down = Down()
        var machine = TriggerStateMachine(downstream: down, operator: Scripted<S>())
        if subscribed {
            let turn = machine.subscribeDownstream(on: me)
            XCTAssertTrue(turn.downstream === down)
            guard case .subscription = turn.callout else {
                XCTFail("the subscription goes first"); return (machine, down)
            }
            XCTAssertNil(machine.calloutReturned(returning: .none, on: me).next)
        }
        return (machine, down)
    }

    private func value<S>(_ turn: TriggerStateMachine<Scripted<S>, Down>.Turn?) -> Int? {
        if case .value(let value)? = turn?.callout { return value }
        return nil
    }

    private func completion<S>(_ turn: TriggerStateMachine<Scripted<S>, Down>.Turn?) -> Subscribers.Completion<
        TestError
    >? {
        if case .completion(let completion)? = turn?.callout { return completion }
        return nil
    }

    private func phase<S>(_ machine: TriggerStateMachine<Scripted<S>, Down>) -> String { machine.phase.name }

    // MARK: Pass-through

    func testAValueTakesTheFreeTurnAndReturningGivesItBack() {
        var (machine, down) = machine(PassThrough.self)
        guard case .deliver(let receiver, 1) = machine.upstreamSent(1, on: me) else { return XCTFail() }
        XCTAssertTrue(receiver === down)
        XCTAssertEqual(phase(machine), "calling")
        let returned = machine.calloutReturned(returning: .max(3), on: me)
        XCTAssertNil(returned.next)
        XCTAssertNil(returned.forward, "pass-through: the returned demand goes back as receive(_:)'s result")
        XCTAssertEqual(machine.operator.requests, [])
        XCTAssertEqual(phase(machine), "idle")
    }

    func testANestedValueIsDeliveredAtOnceAndOneFromAnotherThreadIsSkipped() {
        var (machine, _) = machine(PassThrough.self)
        _ = machine.upstreamSent(1, on: me)
        guard case .deliver(_, 2) = machine.upstreamSent(2, on: me) else { return XCTFail("nested: at once") }
        guard case .skip(.none) = machine.upstreamSent(3, on: other) else { return XCTFail("another thread: skip") }
        XCTAssertNil(machine.calloutReturned(returning: .none, on: me).next, "the nested call returned")
        XCTAssertEqual(phase(machine), "calling", "the enclosing call still holds the turn")
        XCTAssertNil(machine.calloutReturned(returning: .none, on: me).next)
        XCTAssertEqual(phase(machine), "idle")
    }

    func testACompletionFindingTheTurnTakenIsQueuedForItsHolderEvenOnItsOwnThread() {
        var (machine, down) = machine(PassThrough.self)
        _ = machine.upstreamSent(1, on: me)
        machine.operator.next = TriggerEffects(completion: .finished, endsDownstream: true)
        XCTAssertNil(machine.triggerSent((), on: me).turn, "never nested inside the call in progress")
        let returned = machine.calloutReturned(returning: .none, on: me)
        XCTAssertEqual(completion(returned.next), .finished, "it follows the call")
        XCTAssertEqual(phase(machine), "completing")
        guard case .skip = machine.upstreamSent(2, on: me) else { return XCTFail("nothing after the last completion") }
        let last = machine.calloutReturned(returning: .none, on: me)
        XCTAssertTrue(last.released.0 === down, "released after its last completion")
        XCTAssertEqual(phase(machine), "ended")
    }

    func testANonFinalCompletionKeepsTheDownstreamForTheNextOne() {
        var (machine, _) = machine(PassThrough.self)
        machine.operator.next = TriggerEffects(completion: .failure(TestError(1)))
        let action = machine.triggerSent((), on: me)
        XCTAssertEqual(completion(action.turn), .failure(TestError(1)))
        XCTAssertNil(machine.calloutReturned(returning: .none, on: me).released.0)
        XCTAssertEqual(phase(machine), "idle", "drop(untilOutputFrom:) may publish a second completion")
        XCTAssertEqual(completion(machine.upstreamCompleted(.finished, on: me).turn), .finished)
    }

    func testABareReleaseEndsTheDownstreamOnceTheTurnIsFree() {
        var (machine, down) = machine(PassThrough.self)
        _ = machine.upstreamSent(1, on: me)
        machine.operator.next = TriggerEffects(endsDownstream: true)
        let action = machine.triggerSent((), on: me)
        XCTAssertNil(action.turn)
        XCTAssertNil(action.released.0, "the call in progress still uses it")
        let returned = machine.calloutReturned(returning: .none, on: me)
        XCTAssertNil(returned.next)
        XCTAssertTrue(returned.released.0 === down)
        XCTAssertEqual(phase(machine), "ended")
    }

    func testRequestsGoWhereTheOperatorSays() {
        var (machine, _) = machine(PassThrough.self)
        let token = Token()
        machine.operator.forward = token
        let action = machine.requested(.max(2), on: me)
        XCTAssertTrue(action.request?.0 as? Token === token)
        XCTAssertEqual(action.request?.1, .max(2))
        XCTAssertNil(action.turn, "pass-through: nothing waits for demand")
    }

    func testCancelTakesTheDownstreamAndTheHolderOfTheTurnStops() {
        var (machine, down) = machine(PassThrough.self)
        _ = machine.upstreamSent(1, on: me)
        let token = Token()
        machine.operator.forward = token
        let action = machine.cancelled()
        XCTAssertTrue(action.effects.cancelUpstream as? Token === token, "the operator's effects are carried out")
        XCTAssertTrue(action.released.0 === down)
        XCTAssertEqual(phase(machine), "ended")
        let returned = machine.calloutReturned(returning: .none, on: me)
        XCTAssertNil(returned.next)
        XCTAssertNil(returned.released.0, "released once, by the cancel")
        XCTAssertNil(machine.upstreamCompleted(.finished, on: me).turn)
    }

    // MARK: The downstream's subscription

    func testBeforeItsSubscriptionTheDownstreamGetsItFirstWhenACompletionComes() {
        var (machine, down) = machine(WithUpstream.self, subscribed: false)
        machine.operator.next = TriggerEffects(completion: .finished, endsDownstream: true)
        let action = machine.triggerSent((), on: me)
        guard case .subscription? = action.turn?.callout else { return XCTFail("the subscription comes first") }
        let returned = machine.calloutReturned(returning: .none, on: me)
        XCTAssertEqual(completion(returned.next), .finished)
        XCTAssertTrue(machine.calloutReturned(returning: .none, on: me).released.0 === down)
    }

    func testTheUpstreamsSubscriptionSubscribesTheDownstreamWhenTheOperatorSaysSo() {
        var (machine, _) = machine(WithUpstream.self, subscribed: false)
        let (admission, turn) = machine.upstreamSubscribed(Token(), on: me)
        XCTAssertTrue(admission.isAdmitted)
        guard case .subscription? = turn?.callout else { return XCTFail() }
        var (first, _) = self.machine(PassThrough.self)
        XCTAssertNil(first.upstreamSubscribed(Token(), on: me).1, "subscribed at the start already")
    }

    // MARK: Counted demand

    func testCountedValuesWaitForDemandAndTheRequestTakesTheTurnToDeliverThem() {
        var (machine, _) = machine(CountedAll.self)
        guard case .offer(1) = machine.upstreamSent(1, on: me) else { return XCTFail("no demand: offered") }
        XCTAssertNil(machine.offer(1, on: me).0)
        XCTAssertNil(machine.offer(2, on: me).0)
        let action = machine.requested(.max(1), on: me)
        XCTAssertEqual(value(action.turn), 1)
        XCTAssertNil(machine.calloutReturned(returning: .none, on: me).next, "one unit of demand, one value")
        XCTAssertEqual(value(machine.requested(.max(5), on: me).turn), 2)
        XCTAssertNil(machine.calloutReturned(returning: .none, on: me).next)
        guard case .deliver(_, 3) = machine.upstreamSent(3, on: me) else { return XCTFail("demand left: at once") }
    }

    func testACountedValueFromTheTurnsHolderWaitsForTheCallInProgress() {
        var (machine, _) = machine(CountedAll.self)
        _ = machine.requested(.max(5), on: me)
        _ = machine.upstreamSent(1, on: me)
        guard case .offer(2) = machine.upstreamSent(2, on: me) else { return XCTFail("never nested when counted") }
        XCTAssertNil(machine.offer(2, on: me).0)
        XCTAssertEqual(value(machine.calloutReturned(returning: .none, on: me).next), 2, "the holder delivers it")
    }

    func testReturnedDemandIsCountedAndHandedToTheOperator() {
        var (machine, _) = machine(CountedAll.self)
        let token = Token()
        machine.operator.forward = token
        _ = machine.requested(.max(1), on: me)
        _ = machine.upstreamSent(1, on: me)
        let returned = machine.calloutReturned(returning: .max(2), on: me)
        XCTAssertTrue(returned.forward as? Token === token)
        XCTAssertEqual(machine.operator.requests, [.max(1), .max(2)])
        XCTAssertEqual(machine.demand, .max(2))
    }

    func testTheLatestPolicyKeepsOnlyTheNewestWaitingValue() {
        var (machine, _) = machine(CountedLatest.self)
        XCTAssertEqual(machine.offer(1, on: me).dropped, [])
        XCTAssertEqual(machine.offer(2, on: me).dropped, [1], "the replaced value is released after unlocking")
        XCTAssertEqual(value(machine.requested(.max(1), on: me).turn), 2)
    }

    func testACompletionWaitsBehindWaitingValuesUnlessItDropsThem() {
        var (waiting, down) = machine(CountedAll.self)
        _ = waiting.offer(1, on: me)
        waiting.operator.next = TriggerEffects(value: 2, completion: .finished, endsDownstream: true)
        XCTAssertNil(waiting.triggerSent((), on: me).turn, "no demand: the values and the finish wait")
        XCTAssertEqual(value(waiting.requested(.max(1), on: me).turn), 1)
        XCTAssertNil(waiting.calloutReturned(returning: .none, on: me).next, "the finish waits behind 2")
        XCTAssertEqual(value(waiting.requested(.max(1), on: me).turn), 2)
        let afterValues = waiting.calloutReturned(returning: .none, on: me)
        XCTAssertEqual(completion(afterValues.next), .finished)
        XCTAssertTrue(waiting.calloutReturned(returning: .none, on: me).released.0 === down)

        var dropping = machine(CountedAll.self).0
        _ = dropping.offer(1, on: me)
        dropping.operator.next = TriggerEffects(
            completion: .failure(TestError(2)), order: .dropWaitingValues, endsDownstream: true)
        let action = dropping.triggerSent((), on: me)
        XCTAssertEqual(completion(action.turn), .failure(TestError(2)), "a failure needs no demand")
        XCTAssertEqual(action.released.1, [1], "and drops the waiting values")
    }

    func testAValueAfterTheLastCompletionHasNobodyToGoTo() {
        var (machine, _) = machine(CountedAll.self)
        _ = machine.cancelled()
        XCTAssertEqual(machine.offer(1, on: me).dropped, [1])
        machine.operator.next = TriggerEffects(value: 2)
        XCTAssertEqual(machine.triggerSent((), on: me).released.1, [2])
    }
}
