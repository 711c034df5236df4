import UntangleSync

/// How a ``ReducerSubscription`` asks its upstream for values.
///
/// **Demand:** see each case.
/// **Thread safety:** a value.
@usableFromInline
enum ReducerUpstreamDemand: Sendable {
    /// Ask for `.unlimited` once, when the downstream first requests anything (reduce, count, collect, last, ...).
    case unlimitedOnFirstRequest
    /// Ask for `.unlimited` right after the downstream got its subscription, whatever it requests (ignoreOutput).
    case unlimitedAtSubscription
    /// Pass every downstream request upstream unchanged (replaceEmpty, replaceError).
    case passThrough
}

/// What a ``ReducerSubscription`` does with one upstream value.
///
/// **Demand:** `.absorb` and the ending cases give no demand back upstream; `.emit` gives back what the downstream
/// returned.
/// **Thread safety:** a value.
@usableFromInline
enum ReducerStep<Output, Failure: Error> {
    /// Keep the value in the operator's own state; nothing goes downstream yet.
    case absorb
    /// Deliver this value downstream now (pass-through operators such as replaceEmpty).
    case emit(Output)
    /// The result is known early: cancel upstream, then deliver this value (if any) and finish.
    case finish(Output?)
    /// Cancel upstream and fail.
    case fail(Failure)
}

/// The pure state of a ``ReducerSubscription``: every decision it makes under its lock, as a value with no
/// callouts. Each transition returns what to do and everything it dropped (subscription, downstream, pending
/// result), so that the caller releases those after unlocking.
///
/// **Demand:** tracks the downstream's outstanding demand; the single final value waits for it.
/// **Thread safety:** a value; the subscription keeps it in a `LockedBox`.
@usableFromInline
struct ReducerState<Downstream, Final> {
    @usableFromInline
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case done
    }

    @usableFromInline
    enum Phase {
        /// The upstream has not ended yet.
        case running
        /// The upstream ended with a final value the downstream has not requested yet.
        case pending(Final)
        /// The final signal went (or is going) downstream, or the downstream cancelled: nothing more happens.
        case terminated
    }

    @usableFromInline
    var upstream = Upstream.awaiting
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var phase = Phase.running
    @usableFromInline
    var demand = Subscribers.Demand.none
    @usableFromInline
    var requestedUpstream = false
    @usableFromInline
    let policy: ReducerUpstreamDemand

    @inlinable
    init(downstream: Downstream, policy: ReducerUpstreamDemand) {
        self.downstream = downstream
        self.policy = policy
    }

    /// The upstream handed us its subscription: the downstream to pass ours to, or nil to cancel the new one.
    @inlinable
    mutating func receivedSubscription(_ subscription: Subscription) -> Downstream? {
        guard case .awaiting = upstream, case .running = phase else { return nil }
        upstream = .subscribed(subscription)
        return downstream
    }

    /// After the downstream got its subscription: the upstream to ask for `.unlimited`, if the policy says so now.
    @inlinable
    mutating func eagerRequest() -> Subscription? {
        guard policy == .unlimitedAtSubscription, !requestedUpstream, case .subscribed(let subscription) = upstream
        else { return nil }
        requestedUpstream = true
        return subscription
    }

    @inlinable
    mutating func takeDownstream() -> Downstream? {
        defer { downstream = nil }
        return downstream
    }

    @usableFromInline
    enum RequestAction {
        case none
        case requestUpstream(Subscription, Subscribers.Demand)
        case deliver(Downstream, Final)
    }

    /// The downstream requested `demand`.
    @inlinable
    mutating func request(_ demand: Subscribers.Demand) -> RequestAction {
        switch phase {
        case .terminated:
            return .none
        case .pending(let final):
            // The upstream already ended and its result waited for exactly this: hand it over, once.
            phase = .terminated
            guard let downstream = takeDownstream() else { return .none }
            return .deliver(downstream, final)
        case .running:
            self.demand += demand
            guard case .subscribed(let subscription) = upstream else { return .none }
            switch policy {
            case .passThrough:
                return .requestUpstream(subscription, demand)
            case .unlimitedOnFirstRequest, .unlimitedAtSubscription:
                guard !requestedUpstream else { return .none }
                requestedUpstream = true
                return .requestUpstream(subscription, .unlimited)
            }
        }
    }

    /// A pass-through value is about to go downstream: consumes one demand; nil if the downstream cancelled.
    @inlinable
    mutating func willEmit() -> Downstream? {
        guard case .running = phase, let downstream else { return nil }
        demand -= 1
        return downstream
    }

    /// The downstream returned `more` from a pass-through value.
    @inlinable
    mutating func didEmit(returning more: Subscribers.Demand) {
        if case .running = phase { demand += more }
    }

    @usableFromInline
    struct FinishAction {
        /// The upstream subscription to cancel (an early finish) or just to release (the upstream completed).
        @usableFromInline
        var upstream: Subscription?
        /// Deliver this now (nil: wait for demand, or the downstream already cancelled).
        @usableFromInline
        var deliver: (Downstream, Final)?

        @inlinable
        init(upstream: Subscription?, deliver: (Downstream, Final)?) {
            self.upstream = upstream
            self.deliver = deliver
        }
    }

    /// The upstream ended (or the operator ended early). `needsDemand`: the final signal carries a value, which
    /// may only go downstream once it was requested; a bare completion needs no demand.
    @inlinable
    mutating func finish(_ final: Final, needsDemand: Bool) -> FinishAction {
        var action = FinishAction(upstream: nil, deliver: nil)
        if case .subscribed(let subscription) = upstream { action.upstream = subscription }
        upstream = .done
        guard case .running = phase else { return action }
        if !needsDemand || demand > 0 {
            phase = .terminated
            if let downstream = takeDownstream() { action.deliver = (downstream, final) }
        } else {
            phase = .pending(final)
        }
        return action
    }

    @usableFromInline
    struct CancelAction {
        @usableFromInline
        var upstream: Subscription?
        @usableFromInline
        var released: (Downstream?, Final?)

        @inlinable
        init(upstream: Subscription?, released: (Downstream?, Final?)) {
            self.upstream = upstream
            self.released = released
        }
    }

    /// The downstream cancelled: the upstream to cancel, and what to release after unlocking.
    @inlinable
    mutating func cancel() -> CancelAction {
        var action = CancelAction(upstream: nil, released: (takeDownstream(), nil))
        if case .subscribed(let subscription) = upstream { action.upstream = subscription }
        upstream = .done
        if case .pending(let final) = phase { action.released.1 = final }
        phase = .terminated
        return action
    }
}

/// The subscription behind the operators that produce their result when the upstream ends: reduce, count,
/// collect(), last, min/max, contains, allSatisfy, first, ignoreOutput, and the pass-through operators with a
/// possible final value: replaceEmpty, replaceError. Decisions live in ``ReducerState`` (pure, under one lock);
/// this class acts on them after unlocking.
///
/// ```swift
/// var count = 0
/// upstream.subscribe(ReducerSubscription(
///     downstream: subscriber, name: "Count", policy: .unlimitedOnFirstRequest,
///     onValue: { _ in count += 1; return .absorb },
///     onCompletion: { completion in (count, completion) }))
/// ```
///
/// **Demand:** per ``ReducerUpstreamDemand``; the final value is delivered only once the downstream has requested
/// something (it waits if the upstream ends first); a bare completion is delivered at once.
/// **Thread safety:** `request` and `cancel` may be called from any thread, also while the upstream completes on
/// another: the final signal goes downstream exactly once, from whichever thread supplies its last condition.
/// `onValue`/`onCompletion` run only on the (serialized) upstream signal path, with no lock held.
@usableFromInline
final class ReducerSubscription<UpstreamOutput, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    @usableFromInline
    typealias Input = UpstreamOutput
    @usableFromInline
    typealias Failure = UpstreamFailure
    @usableFromInline
    typealias Final = (value: Downstream.Input?, completion: Subscribers.Completion<Downstream.Failure>)

    @usableFromInline
    let state: LockedBox<ReducerState<Downstream, Final>>
    @usableFromInline
    let onValue: (UpstreamOutput) -> ReducerStep<Downstream.Input, Downstream.Failure>
    @usableFromInline
    let onCompletion: (Subscribers.Completion<UpstreamFailure>) -> Final
    /// Set once the operator's result is decided; read and written only on the (serialized) upstream signal path,
    /// so the run-time exclusivity check (about 40 instructions per value) could never fire.
    @exclusivity(unchecked) @usableFromInline
    var ended = false
    @usableFromInline
    let name: String

    @inlinable
    init(
        downstream: Downstream, name: String, policy: ReducerUpstreamDemand,
        onValue: @escaping (UpstreamOutput) -> ReducerStep<Downstream.Input, Downstream.Failure>,
        onCompletion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Final
    ) {
        self.state = LockedBox(tracking: ReducerState(downstream: downstream, policy: policy))
        self.name = name
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    @inlinable
    func receive(subscription: Subscription) {
        let downstream = state.withCriticalSection { $0.receivedSubscription(subscription) }
        CalloutCheck.assertNoLockHeld("a reducer passing on its subscription")
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        if let eager = state.withCriticalSection({ $0.eagerRequest() }) {
            CalloutCheck.assertNoLockHeld("a reducer requesting upstream")
            eager.request(.unlimited)
        }
    }

    @inlinable
    func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        guard !ended else { return .none }
        switch onValue(input) {
        case .absorb:
            return .none
        case .emit(let value):
            guard let downstream = state.withCriticalSection({ $0.willEmit() }) else { return .none }
            CalloutCheck.assertNoLockHeld("a reducer emitting")
            let more = downstream.receive(value)
            if more > 0 { state.withCriticalSection { $0.didEmit(returning: more) } }
            return more
        case .finish(let value):
            ended = true
            end((value, .finished), cancellingUpstream: true)
        case .fail(let error):
            ended = true
            end((nil, .failure(error)), cancellingUpstream: true)
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard !ended else { return }
        ended = true
        end(onCompletion(completion), cancellingUpstream: false)
    }

    // The final signal races the downstream's request (another thread): both go through `finish`/`request` under
    // the state lock, and only the transition to `.terminated` hands out the downstream, so exactly one of the two
    // threads delivers, after unlocking. No other signal can overlap it: values stopped when the upstream ended.
    @inlinable
    func end(_ final: Final, cancellingUpstream: Bool) {
        let action = state.withCriticalSection { $0.finish(final, needsDemand: final.value != nil) }
        CalloutCheck.assertNoLockHeld("a reducer ending")
        if cancellingUpstream { action.upstream?.cancel() }
        if let (downstream, final) = action.deliver { deliver(final, to: downstream) }
    }

    @inlinable
    func deliver(_ final: Final, to downstream: Downstream) {
        if let value = final.value { _ = downstream.receive(value) }
        downstream.receive(completion: final.completion)
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let action = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("a reducer acting on a request")
        switch action {
        case .none:
            break
        case .requestUpstream(let subscription, let demand):
            subscription.request(demand)
        case .deliver(let downstream, let final):
            deliver(final, to: downstream)
        }
    }

    @inlinable
    func cancel() {
        let action = state.withCriticalSection { $0.cancel() }
        CalloutCheck.assertNoLockHeld("a reducer cancelling upstream")
        action.upstream?.cancel()
        withExtendedLifetime(action.released) {}
    }

    @inlinable
    var description: String { name }
}
