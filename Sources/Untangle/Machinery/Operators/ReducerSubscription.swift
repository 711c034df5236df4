import UntangleSync

/// How a ``ReducerSubscription`` asks its upstream for values, and what its final signal waits for.
///
/// **Demand:** see each case.
/// **Thread safety:** a value.
@usableFromInline
enum ReducerUpstreamDemand: Sendable {
    /// The reducers (reduce, count, collect, first, last, min/max, contains, allSatisfy, ...): ask for `.unlimited`
    /// right after the downstream got its subscription; downstream requests only release the held result, and even
    /// a bare `.finished` waits for the first downstream request (a failure does not).
    case unlimitedAtSubscription
    /// replaceEmpty: pass every downstream request upstream unchanged, nothing more (Apple's also asks for
    /// `.unlimited` and delivers values beyond the downstream's demand, which the contract's exact demand forbids:
    /// ThreadSafety.md); values go downstream as the upstream sends them, as through `map`.
    case passThrough
    /// replaceError: pass every downstream request upstream unchanged; an upstream value beyond the downstream's
    /// demand traps, as in Combine.
    case passThroughTrappingUnrequested

    /// Whether a `.finished` without a value waits for downstream demand.
    @inlinable
    var bareFinishWaitsForDemand: Bool { self == .unlimitedAtSubscription }

    /// Whether the subscription asks the upstream for `.unlimited` once the downstream has its subscription.
    @inlinable
    var requestsUnlimitedAtSubscription: Bool { self == .unlimitedAtSubscription }

    /// Whether downstream requests are passed upstream.
    @inlinable
    var forwardsRequests: Bool { self != .unlimitedAtSubscription }
}

/// What a ``ReducerSubscription``'s `customMirror` shows, after Combine's subscriptions.
///
/// **Thread safety:** a value; the mirror is built from the locked state only (the accumulator lives on the upstream
/// signal path and is never read from another thread).
@usableFromInline
enum ReducerReflection<Result> {
    /// `downstream`, `result` (the held result, once the upstream ended), `initial` and `status`.
    case reducer(initial: Result?)
    /// `count`: the number of elements in the held result (0 until the upstream finished).
    case collection(count: (Result) -> Int)
    /// No children.
    case none
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
/// **Demand:** tracks the downstream's outstanding demand; the final value (and, for reducers, a bare `.finished`)
/// waits for it.
/// **Thread safety:** a value; the subscription keeps it in a `LockedBox`.
@usableFromInline
struct ReducerState<Downstream, Final> {
    @usableFromInline
    enum Phase {
        /// The upstream has not ended yet.
        case running
        /// The upstream ended with a final signal the downstream has not requested yet.
        case pending(Final)
        /// The final value is going downstream; its completion follows unless the downstream cancels meanwhile
        /// (the downstream stays here so that a `cancel()` made inside that `receive` can take it).
        case deliveringValue
        /// The final signal went (or is going) downstream, or the downstream cancelled: nothing more happens.
        case terminated
    }

    @usableFromInline
    var upstream = UpstreamSlot.awaiting
    @usableFromInline
    var downstream: Downstream?
    @usableFromInline
    var phase = Phase.running
    @usableFromInline
    var demand = Subscribers.Demand.none
    @usableFromInline
    let policy: ReducerUpstreamDemand
    /// Whether the final signal (once the upstream ended) starts with a value, set by ``finish(_:needsDemand:hasValue:)``.
    @usableFromInline
    var finalHasValue = false

    @inlinable
    init(downstream: Downstream, policy: ReducerUpstreamDemand) {
        self.downstream = downstream
        self.policy = policy
    }

    /// The upstream handed us its subscription: the downstream to pass ours to, or nil to cancel the new one (a
    /// second subscription, or one arriving after the end).
    @inlinable
    mutating func receivedSubscription(_ subscription: Subscription) -> Downstream? {
        guard case .awaiting = upstream, case .running = phase else { return nil }
        upstream = .subscribed(subscription)
        return downstream
    }

    /// After the downstream got its subscription: the upstream to ask for `.unlimited`, if the policy says so and
    /// the downstream did not cancel meanwhile.
    @inlinable
    func eagerRequest() -> Subscription? {
        guard policy.requestsUnlimitedAtSubscription, case .running = phase,
            case .subscribed(let subscription) = upstream
        else { return nil }
        return subscription
    }

    @inlinable
    mutating func takeDownstream() -> Downstream? {
        defer { downstream = nil }
        return downstream
    }

    /// Hands the final signal over, once: the downstream to deliver it to (nil: it cancelled). A final value keeps
    /// the downstream in the state until ``valueDelivered()``, so that a cancel made while receiving it drops the
    /// completion that would follow.
    @inlinable
    mutating func handOver() -> Downstream? {
        guard finalHasValue, downstream != nil else {
            phase = .terminated
            return takeDownstream()
        }
        phase = .deliveringValue
        return downstream
    }

    /// The final value was delivered: the downstream to send the completion to, nil if it cancelled meanwhile.
    @inlinable
    mutating func valueDelivered() -> Downstream? {
        guard case .deliveringValue = phase else { return nil }
        phase = .terminated
        return takeDownstream()
    }

    @usableFromInline
    enum RequestAction {
        case none
        case requestUpstream(Subscription, Subscribers.Demand)
        case deliver(Downstream, Final)
    }

    /// The downstream requested `demand` (also before the upstream's subscription arrived: it is remembered).
    @inlinable
    mutating func request(_ demand: Subscribers.Demand) -> RequestAction {
        switch phase {
        case .terminated, .deliveringValue:
            return .none
        case .pending(let final):
            // The upstream already ended and its final signal waited for exactly this: hand it over, once.
            guard let downstream = handOver() else { return .none }
            return .deliver(downstream, final)
        case .running:
            self.demand += demand
            guard policy.forwardsRequests, case .subscribed(let subscription) = upstream else { return .none }
            return .requestUpstream(subscription, demand)
        }
    }

    @usableFromInline
    enum EmitDecision {
        /// The downstream cancelled (or the operator ended): drop the value.
        case drop
        /// Deliver to this downstream.
        case deliver(Downstream)
        /// The upstream sent a value the downstream never asked for (replaceError traps, as Combine does).
        case unrequested
    }

    /// A pass-through value is about to go downstream: consumes one demand.
    @inlinable
    mutating func willEmit() -> EmitDecision {
        guard case .running = phase, let downstream else { return .drop }
        if policy == .passThroughTrappingUnrequested && demand == .none { return .unrequested }
        demand -= 1
        return .deliver(downstream)
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

    /// The upstream ended (or the operator ended early). `needsDemand`: the final signal may only go downstream
    /// once something was requested (a value, or a reducer's bare `.finished`); a failure needs no demand.
    /// `hasValue`: the final signal is a value followed by the completion.
    @inlinable
    mutating func finish(_ final: Final, needsDemand: Bool, hasValue: Bool) -> FinishAction {
        var action = FinishAction(upstream: upstream.end(), deliver: nil)
        guard case .running = phase else { return action }
        finalHasValue = hasValue
        if !needsDemand || demand > 0 {
            if let downstream = handOver() { action.deliver = (downstream, final) }
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

    /// The downstream cancelled: the upstream to cancel, and what to release after unlocking. Before the upstream's
    /// subscription arrived this does nothing, as in Combine (the downstream cannot hold this subscription yet).
    @inlinable
    mutating func cancel() -> CancelAction {
        if case .awaiting = upstream { return CancelAction(upstream: nil, released: (nil, nil)) }
        var action = CancelAction(upstream: upstream.end(), released: (takeDownstream(), nil))
        if case .pending(let final) = phase { action.released.1 = final }
        phase = .terminated
        return action
    }

    /// The final signal waiting for the downstream's request, if any.
    @inlinable
    var held: Final? {
        guard case .pending(let final) = phase else { return nil }
        return final
    }

    /// A word for the subscription's mirror.
    @inlinable
    var statusDescription: String {
        switch (upstream, phase) {
        case (.awaiting, _): return "awaiting subscription"
        case (.subscribed, .running): return "subscribed"
        case (_, .pending): return "holding the result until requested"
        case (_, .terminated), (_, .deliveringValue), (.ended, .running): return "terminal"
        }
    }
}

/// The subscription behind the operators that produce their result when the upstream ends: reduce, count,
/// collect(), last, min/max, contains, allSatisfy, first, and the pass-through operators with a possible final
/// value: replaceEmpty, replaceError. Decisions live in ``ReducerState`` (pure, under one lock); this class acts on
/// them after unlocking.
///
/// ```swift
/// var count = 0
/// upstream.subscribe(ReducerSubscription(
///     downstream: subscriber, name: "Count", policy: .unlimitedAtSubscription, reflection: .reducer(initial: 0),
///     onValue: { _ in count += 1; return .absorb },
///     onCompletion: { completion in (count, completion) }))
/// ```
///
/// As in Combine: the downstream gets this subscription before the upstream is asked for anything; signals that
/// arrive before the upstream's subscription are ignored; a second subscription is cancelled.
///
/// **Demand:** per ``ReducerUpstreamDemand``; the final value is delivered only once the downstream has requested
/// something (it waits if the upstream ends first); a failure is delivered at once.
/// **Thread safety:** `request` and `cancel` may be called from any thread, also while the upstream completes on
/// another: the final signal goes downstream exactly once, from whichever thread supplies its last condition.
/// `onValue`/`onCompletion` run only on the (serialized) upstream signal path, with no lock held.
@usableFromInline
final class ReducerSubscription<UpstreamOutput, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline
    typealias Input = UpstreamOutput
    @usableFromInline
    typealias Failure = UpstreamFailure
    @usableFromInline
    typealias Final = (value: Downstream.Input?, completion: Subscribers.Completion<Downstream.Failure>)

    /// Where the upstream signal path is: values and completions count only while `.running`.
    @usableFromInline
    enum SignalPhase {
        case awaitingSubscription
        case running
        case ended
    }

    @usableFromInline
    let state: LockedBox<ReducerState<Downstream, Final>>
    @usableFromInline
    let onValue: (UpstreamOutput) -> ReducerStep<Downstream.Input, Downstream.Failure>
    @usableFromInline
    let onCompletion: (Subscribers.Completion<UpstreamFailure>) -> Final
    /// Read and written only on the (serialized) upstream signal path: `receive(subscription:)` happens before the
    /// values it enables, so the run-time exclusivity check (about 40 instructions per value) could never fire.
    @exclusivity(unchecked) @usableFromInline
    var signalPhase = SignalPhase.awaitingSubscription
    @usableFromInline
    let name: String
    @usableFromInline
    let reflection: ReducerReflection<Downstream.Input>
    @usableFromInline
    let bareFinishWaitsForDemand: Bool

    @inlinable
    init(
        downstream: Downstream, name: String, policy: ReducerUpstreamDemand,
        reflection: ReducerReflection<Downstream.Input>,
        onValue: @escaping (UpstreamOutput) -> ReducerStep<Downstream.Input, Downstream.Failure>,
        onCompletion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Final
    ) {
        self.state = LockedBox(tracking: ReducerState(downstream: downstream, policy: policy))
        self.name = name
        self.reflection = reflection
        self.bareFinishWaitsForDemand = policy.bareFinishWaitsForDemand
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
        signalPhase = .running
        downstream.receive(subscription: self)
        if let eager = state.withCriticalSection({ $0.eagerRequest() }) {
            CalloutCheck.assertNoLockHeld("a reducer requesting upstream")
            eager.request(.unlimited)
        }
    }

    @inlinable
    func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        guard case .running = signalPhase else { return .none }
        switch onValue(input) {
        case .absorb:
            return .none
        case .emit(let value):
            let downstream: Downstream
            switch state.withCriticalSection({ $0.willEmit() }) {
            case .drop: return .none
            case .unrequested: preconditionFailure("\(name) received a value with no outstanding downstream demand")
            case .deliver(let receiver): downstream = receiver
            }
            CalloutCheck.assertNoLockHeld("a reducer emitting")
            let more = downstream.receive(value)
            if more > 0 { state.withCriticalSection { $0.didEmit(returning: more) } }
            return more
        case .finish(let value):
            signalPhase = .ended
            end((value, .finished), cancellingUpstream: true)
        case .fail(let error):
            signalPhase = .ended
            end((nil, .failure(error)), cancellingUpstream: true)
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard case .running = signalPhase else { return }
        signalPhase = .ended
        end(onCompletion(completion), cancellingUpstream: false)
    }

    // The final signal races the downstream's request (another thread): both go through `finish`/`request` under
    // the state lock, and only the hand-over out of `.running`/`.pending` gives out the downstream, so exactly one of
    // the two threads delivers, after unlocking. No other signal can overlap it: values stopped when the upstream ended.
    @inlinable
    func end(_ final: Final, cancellingUpstream: Bool) {
        let waits: Bool
        switch final.completion {
        case .failure: waits = final.value != nil
        case .finished: waits = final.value != nil || bareFinishWaitsForDemand
        }
        let hasValue = final.value != nil
        let action = state.withCriticalSection { $0.finish(final, needsDemand: waits, hasValue: hasValue) }
        CalloutCheck.assertNoLockHeld("a reducer ending")
        if cancellingUpstream { action.upstream?.cancel() }
        if let (downstream, final) = action.deliver { deliver(final, to: downstream) }
    }

    // A final value leaves the state in `.deliveringValue`: the completion goes only to a downstream still there
    // after the value, so a `cancel()` made inside `receive(_:)` (which takes it) gets nothing more.
    @inlinable
    func deliver(_ final: Final, to downstream: Downstream) {
        if let value = final.value {
            _ = downstream.receive(value)
            guard let downstream = state.withCriticalSection({ $0.valueDelivered() }) else { return }
            CalloutCheck.assertNoLockHeld("a reducer finishing")
            downstream.receive(completion: final.completion)
            return
        }
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

    @inlinable
    var playgroundDescription: Any { name }

    // The mirror reads only the locked state (a snapshot; the downstream is retained by the snapshot and released
    // with the mirror, never under the lock).
    @inlinable
    var customMirror: Mirror {
        switch reflection {
        case .none:
            return Mirror(self, children: [:])
        case .reducer(let initial):
            let (downstream, held, status) = state.withCriticalSection { state in
                (state.downstream, state.held, state.statusDescription)
            }
            let result = held?.value ?? nil
            let children: [(label: String?, value: Any)] = [
                ("downstream", downstream as Any), ("result", result as Any), ("initial", initial as Any),
                ("status", status),
            ]
            return Mirror(self, children: children)
        case .collection(let count):
            let held = state.withCriticalSection { $0.held }
            return Mirror(self, children: ["count": (held?.value).map(count) ?? 0])
        }
    }
}
