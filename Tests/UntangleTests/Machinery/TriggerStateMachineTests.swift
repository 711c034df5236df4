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
        /// The per-value answer to a trigger value (``TriggerStateMachine/triggerValue(_:on:)``).
        var perValue = TriggerSignalDecision<Int, Never>.decide
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
        func triggerValue(_ signal: Void) -> TriggerSignalDecision<Int, Never> { perValue }
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
            XCTAssertFalse(machine.calloutReturned(returning: .none, on: me).keepsTurn)
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

    private func phase<S>(_ machine: TriggerStateMachine<Scripted<S>, Down>) -> String {
        String(describing: machine.phase).prefix { $0 != "(" }.description
    }

    /// An upstream value: the downstream the caller must call now (nil: not now), or the skipped demand.
    private func send<S>(_ value: Int, to machine: inout TriggerStateMachine<Scripted<S>, Down>, on thread: ThreadID)
        -> (delivered: Down?, skipped: Subscribers.Demand?)
    {
        var downstream: Down?
        switch machine.upstreamSent(value, on: thread, taking: &downstream) {
        case .deliver: return (downstream, nil)
        case .skip(let demand): return (nil, demand)
        case .keep: return (nil, nil)
        }
    }

    /// The turn's holder gives it back after a call: the next call it makes, if something was queued.
    private func returned<S>(
        _ machine: inout TriggerStateMachine<Scripted<S>, Down>, more: Subscribers.Demand = .none
    ) -> (next: TriggerStateMachine<Scripted<S>, Down>.Turn?, forward: Subscription?, released: Down?) {
        let downstream = machine.downstream
        let returned = machine.calloutReturned(returning: more, on: me)
        guard returned.keepsTurn else {
            return (nil, returned.forward, machine.downstream == nil && downstream != nil ? downstream : nil)
        }
        let next = machine.nextTurn(on: me)
        return (next.turn, returned.forward, next.released.0)
    }

    // MARK: Pass-through

    func testAValueTakesTheFreeTurnAndReturningGivesItBack() {
        var (machine, down) = machine(PassThrough.self)
        XCTAssertTrue(send(1, to: &machine, on: me).delivered === down)
        XCTAssertEqual(phase(machine), "calling")
        let back = returned(&machine, more: .max(3))
        XCTAssertNil(back.next)
        XCTAssertNil(back.forward, "pass-through: the returned demand goes back as receive(_:)'s result")
        XCTAssertEqual(machine.operator.requests, [])
        XCTAssertEqual(phase(machine), "idle")
    }

    func testANestedValueIsDeliveredAtOnceAndOneFromAnotherThreadIsDropped() {
        var (machine, down) = machine(PassThrough.self)
        _ = send(1, to: &machine, on: me)
        XCTAssertTrue(send(2, to: &machine, on: me).delivered === down, "nested: at once")
        XCTAssertNil(send(3, to: &machine, on: other).delivered, "another thread: dropped")
        XCTAssertNil(returned(&machine).next, "the nested call returned")
        XCTAssertEqual(phase(machine), "calling", "the enclosing call still holds the turn")
        XCTAssertNil(returned(&machine).next)
        XCTAssertEqual(phase(machine), "idle")
    }

    func testACompletionFindingTheTurnTakenIsQueuedForItsHolderEvenOnItsOwnThread() {
        var (machine, down) = machine(PassThrough.self)
        _ = send(1, to: &machine, on: me)
        machine.operator.next = TriggerEffects(completion: .finished, endsDownstream: true)
        XCTAssertNil(machine.signal(on: me) { $0.triggerSent(()) }.turn, "never nested inside the call in progress")
        let back = returned(&machine)
        XCTAssertEqual(completion(back.next), .finished, "it follows the call")
        XCTAssertEqual(phase(machine), "completing")
        XCTAssertEqual(send(2, to: &machine, on: me).skipped, Subscribers.Demand.none, "nothing after the last one")
        XCTAssertTrue(returned(&machine).released === down, "released after its last completion")
        XCTAssertEqual(phase(machine), "ended")
    }

    func testANonFinalCompletionKeepsTheDownstreamForTheNextOne() {
        var (machine, _) = machine(PassThrough.self)
        machine.operator.next = TriggerEffects(completion: .failure(TestError(1)))
        let action = machine.signal(on: me) { $0.triggerSent(()) }
        XCTAssertEqual(completion(action.turn), .failure(TestError(1)))
        XCTAssertNil(returned(&machine).released)
        XCTAssertEqual(phase(machine), "idle", "drop(untilOutputFrom:) may publish a second completion")
        XCTAssertEqual(completion(machine.signal(on: me) { $0.upstreamCompleted(.finished) }.turn), .finished)
    }

    func testABareReleaseEndsTheDownstreamOnceTheTurnIsFree() {
        var (machine, down) = machine(PassThrough.self)
        _ = send(1, to: &machine, on: me)
        machine.operator.next = TriggerEffects(endsDownstream: true)
        let action = machine.signal(on: me) { $0.triggerSent(()) }
        XCTAssertNil(action.turn)
        XCTAssertNil(action.released.0, "the call in progress still uses it")
        let back = returned(&machine)
        XCTAssertNil(back.next)
        XCTAssertTrue(back.released === down)
        XCTAssertEqual(phase(machine), "ended")

        var (idle, idleDown) = self.machine(PassThrough.self)
        idle.operator.next = TriggerEffects(endsDownstream: true)
        XCTAssertTrue(
            idle.signal(on: me) { $0.triggerSent(()) }.released.0 === idleDown, "released at once when nobody calls it")
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
        _ = send(1, to: &machine, on: me)
        let token = Token()
        machine.operator.forward = token
        let action = machine.cancelled()
        XCTAssertTrue(action.effects.cancelUpstream as? Token === token, "the operator's effects are carried out")
        XCTAssertTrue(action.released.0 === down)
        XCTAssertEqual(phase(machine), "ended")
        let back = returned(&machine)
        XCTAssertNil(back.next)
        XCTAssertNil(back.released, "released once, by the cancel")
        XCTAssertNil(machine.signal(on: me) { $0.upstreamCompleted(.finished) }.turn)
    }

    // MARK: The downstream's subscription

    func testBeforeItsSubscriptionTheDownstreamGetsItFirstWhenACompletionComes() {
        var (machine, down) = machine(WithUpstream.self, subscribed: false)
        machine.operator.next = TriggerEffects(completion: .finished, endsDownstream: true)
        let action = machine.signal(on: me) { $0.triggerSent(()) }
        guard case .subscription? = action.turn?.callout else { return XCTFail("the subscription comes first") }
        XCTAssertEqual(completion(returned(&machine).next), .finished)
        XCTAssertTrue(returned(&machine).released === down)
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
        var (machine, down) = machine(CountedAll.self)
        let first = send(1, to: &machine, on: me)
        XCTAssertNil(first.delivered, "no demand: offered")
        XCTAssertNil(first.skipped)
        XCTAssertNil(machine.offer(1, on: me).0)
        XCTAssertNil(machine.offer(2, on: me).0)
        XCTAssertEqual(value(machine.requested(.max(1), on: me).turn), 1)
        XCTAssertNil(returned(&machine).next, "one unit of demand, one value")
        XCTAssertEqual(value(machine.requested(.max(5), on: me).turn), 2)
        XCTAssertNil(returned(&machine).next)
        XCTAssertTrue(send(3, to: &machine, on: me).delivered === down, "demand left: at once")
    }

    func testACountedValueFromTheTurnsHolderWaitsForTheCallInProgress() {
        var (machine, _) = machine(CountedAll.self)
        _ = machine.requested(.max(5), on: me)
        XCTAssertNotNil(send(1, to: &machine, on: me).delivered)
        XCTAssertNil(send(2, to: &machine, on: me).delivered, "never nested when counted")
        XCTAssertNil(machine.offer(2, on: me).0)
        XCTAssertEqual(value(returned(&machine).next), 2, "the holder delivers it")
    }

    func testReturnedDemandIsCountedAndHandedToTheOperator() {
        var (machine, _) = machine(CountedAll.self)
        let token = Token()
        machine.operator.forward = token
        _ = machine.requested(.max(1), on: me)
        _ = send(1, to: &machine, on: me)
        XCTAssertTrue(returned(&machine, more: .max(2)).forward as? Token === token)
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
        XCTAssertNil(waiting.signal(on: me) { $0.triggerSent(()) }.turn, "no demand: the values and the finish wait")
        XCTAssertEqual(value(waiting.requested(.max(1), on: me).turn), 1)
        XCTAssertNil(returned(&waiting).next, "the finish waits behind 2")
        XCTAssertEqual(value(waiting.requested(.max(1), on: me).turn), 2)
        XCTAssertEqual(completion(returned(&waiting).next), .finished)
        XCTAssertTrue(returned(&waiting).released === down)

        var dropping = machine(CountedAll.self).0
        _ = dropping.offer(1, on: me)
        dropping.operator.next = TriggerEffects(
            completion: .failure(TestError(2)), order: .dropWaitingValues, endsDownstream: true)
        let action = dropping.signal(on: me) { $0.triggerSent(()) }
        XCTAssertEqual(completion(action.turn), .failure(TestError(2)), "a failure needs no demand")
        XCTAssertEqual(action.released.1, [1], "and drops the waiting values")
    }

    // MARK: Trigger values on the operator's per-value path

    /// A trigger value decided by the operator's `triggerValue`: the downstream to call now and the value, or what
    /// waits and what was dropped.
    private func tick<S>(
        _ decision: TriggerSignalDecision<Int, Never>, to machine: inout TriggerStateMachine<Scripted<S>, Down>,
        on thread: ThreadID
    ) -> (delivered: (Down, Int)?, queued: (turn: Int?, dropped: [Int])?, decide: Bool) {
        machine.operator.perValue = decision
        switch machine.triggerValue((), on: thread) {
        case .keep: return (nil, nil, false)
        case .deliver(let downstream, let value): return ((downstream, value), nil, false)
        case .queued(let turn, let dropped): return (nil, (self.value(turn), dropped), false)
        case .decide: return (nil, nil, true)
        }
    }

    func testATriggerValueTakesTheFreeTurnAndKeepOrDecideChangeNothing() {
        var (machine, down) = machine(PassThrough.self)
        XCTAssertTrue(tick(.decide, to: &machine, on: me).decide)
        XCTAssertEqual(phase(machine), "idle", "decide: the general path asks triggerSent")
        XCTAssertNil(tick(.keep(replaced: nil), to: &machine, on: me).delivered)
        XCTAssertEqual(phase(machine), "idle")
        let delivered = tick(.deliver(5), to: &machine, on: me).delivered
        XCTAssertTrue(delivered?.0 === down)
        XCTAssertEqual(delivered?.1, 5)
        XCTAssertEqual(phase(machine), "calling")
        XCTAssertFalse(machine.turnReturned(on: me), "nothing queued: the turn is given back")
        XCTAssertEqual(phase(machine), "idle")
    }

    func testATriggerValueFindingTheTurnTakenWaitsForItsHolderEvenOnItsOwnThread() {
        var (machine, _) = machine(PassThrough.self)
        _ = send(1, to: &machine, on: me)
        let queued = tick(.deliver(7), to: &machine, on: other).queued
        XCTAssertNil(queued?.turn)
        XCTAssertEqual(queued?.dropped, [])
        XCTAssertNil(tick(.deliver(8), to: &machine, on: me).delivered, "never nested, as one from triggerSent")
        XCTAssertTrue(machine.turnReturned(on: me), "the holder keeps the turn for what waits")
        XCTAssertEqual(value(machine.nextTurn(on: me).turn), 7)
        XCTAssertEqual(value(returned(&machine).next), 8)
        XCTAssertNil(returned(&machine).next)
        XCTAssertEqual(phase(machine), "idle")
    }

    func testACountedTriggerValueWaitsForDemandReplacingAnOlderOneUnderTheLatestPolicy() {
        var (machine, down) = machine(CountedLatest.self)
        XCTAssertEqual(tick(.deliver(1), to: &machine, on: me).queued?.dropped, [], "no demand: it waits")
        XCTAssertEqual(tick(.deliver(2), to: &machine, on: me).queued?.dropped, [1], "released after unlocking")
        XCTAssertEqual(value(machine.requested(.max(2), on: me).turn), 2)
        XCTAssertNil(returned(&machine).next)
        XCTAssertEqual(machine.demand, .max(1))
        XCTAssertTrue(tick(.deliver(3), to: &machine, on: me).delivered?.0 === down, "demand left: at once")
        XCTAssertEqual(machine.demand, .none, "and counted")
    }

    func testATriggerValueAfterTheLastCompletionIsDropped() {
        var (machine, _) = machine(CountedAll.self)
        _ = machine.cancelled()
        let queued = tick(.deliver(4), to: &machine, on: me).queued
        XCTAssertNil(queued?.turn)
        XCTAssertEqual(queued?.dropped, [4])
    }

    func testAValueAfterTheLastCompletionHasNobodyToGoTo() {
        var (machine, _) = machine(CountedAll.self)
        _ = machine.cancelled()
        XCTAssertEqual(send(1, to: &machine, on: me).skipped, Subscribers.Demand.none)
        XCTAssertEqual(machine.offer(1, on: me).dropped, [1])
        machine.operator.next = TriggerEffects(value: 2)
        XCTAssertEqual(machine.signal(on: me) { $0.triggerSent(()) }.released.1, [2])
    }
}
