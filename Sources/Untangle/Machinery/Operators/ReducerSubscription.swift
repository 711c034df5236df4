import UntangleSync

/// How a ``ReducerSubscription`` asks its upstream for values, and what its final signal waits for.
///
/// **Demand:** see each case.
/// **Thread safety:** a value.
@usableFromInline
package enum ReducerUpstreamDemand: Sendable {
    /// The reducers (reduce, count, collect, first, last, min/max, contains, allSatisfy, ...): ask for `.unlimited`
    /// right after the downstream got its subscription; downstream requests only release the held result, and even
    /// a bare `.finished` waits for the first downstream request (a failure does not).
    case unlimitedAtSubscription
    /// A reducer whose subscriber need not request anything (UntangleExtras' `asCompletable`): `.unlimited` right
    /// after the downstream got its subscription, and a bare `.finished` goes downstream without demand.
    case unlimitedAtSubscriptionFinishingWithoutDemand
    /// A reducer that asks nothing before its subscriber does (UntangleExtras' `asSingle`, `asMaybe`): `.unlimited`
    /// once, at the downstream's first request; a bare `.finished` goes downstream without demand.
    case unlimitedOnFirstRequest
    /// replaceEmpty (and UntangleExtras' `materialize`): pass every downstream request upstream unchanged, nothing
    /// more (Apple's replaceEmpty also asks for `.unlimited` and delivers values beyond the downstream's demand,
    /// which the contract's exact demand forbids: ThreadSafety.md); values go downstream as the upstream sends
    /// them, as through `map`.
    case passThrough
    /// replaceError: pass every downstream request upstream unchanged; an upstream value beyond the downstream's
    /// demand traps, as in Combine.
    case passThroughTrappingUnrequested

    /// Whether a `.finished` without a value waits for downstream demand.
    @inlinable
    var bareFinishWaitsForDemand: Bool { self == .unlimitedAtSubscription }
}

/// What a ``ReducerSubscription``'s `customMirror` shows, after Combine's subscriptions.
///
/// **Thread safety:** a value; the mirror is built from the locked state only (the accumulator lives on the upstream
/// signal path and is never read from another thread).
@usableFromInline
package enum ReducerReflection<Result> {
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
package enum ReducerStep<Output, Failure: Error> {
    /// Keep the value in the operator's own state; nothing goes downstream yet.
    case absorb
    /// Deliver this value downstream now (pass-through operators such as replaceEmpty).
    case emit(Output)
    /// The result is known early: cancel upstream, then deliver this value (if any) and finish.
    case finish(Output?)
    /// Cancel upstream and fail.
    case fail(Failure)
}

/// The subscription behind the operators that produce their result when the upstream ends: reduce, count,
/// collect(), last, min/max, contains, allSatisfy, first, the pass-through operators with a possible final value
/// (replaceEmpty, replaceError), and in UntangleExtras materialize and the traits' conversions. Decisions live in
/// ``ReducerStateMachine`` (pure, under one lock); this class acts on them after unlocking.
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
package final class ReducerSubscription<UpstreamOutput, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline
    package typealias Input = UpstreamOutput
    @usableFromInline
    package typealias Failure = UpstreamFailure
    /// The final signal: a last value (if any), then the completion.
    @usableFromInline
    package typealias Final = (value: Downstream.Input?, completion: Subscribers.Completion<Downstream.Failure>)

    /// Where the upstream signal path is: values and completions count only while `.running`. It is the signal
    /// path's own view, kept beside the locked machine so that an absorbed value (reduce, count) takes no lock.
    @usableFromInline
    enum SignalPhase {
        case awaitingSubscription
        case running
        case ended
    }

    @usableFromInline
    let state: LockedBox<ReducerStateMachine<Downstream, Final>>
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
    package init(
        downstream: Downstream, name: String, policy: ReducerUpstreamDemand,
        reflection: ReducerReflection<Downstream.Input>,
        onValue: @escaping (UpstreamOutput) -> ReducerStep<Downstream.Input, Downstream.Failure>,
        onCompletion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Final
    ) {
        self.state = LockedBox(tracking: ReducerStateMachine(downstream: downstream, policy: policy))
        self.name = name
        self.reflection = reflection
        self.bareFinishWaitsForDemand = policy.bareFinishWaitsForDemand
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    @inlinable
    package func receive(subscription: Subscription) {
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
    package func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
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
    package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
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

    // A final value leaves the machine in `.deliveringValue`: the completion goes only to a downstream still there
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
    package func request(_ demand: Subscribers.Demand) {
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
    package func cancel() {
        let action = state.withCriticalSection { $0.cancel() }
        CalloutCheck.assertNoLockHeld("a reducer cancelling upstream")
        action.upstream?.cancel()
        withExtendedLifetime(action.released) {}
    }

    @inlinable
    package var description: String { name }

    @inlinable
    package var playgroundDescription: Any { name }

    // The mirror reads only the locked state (a snapshot; the downstream is retained by the snapshot and released
    // with the mirror, never under the lock).
    @inlinable
    package var customMirror: Mirror {
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

extension ReducerSubscription where Downstream.Failure == Error {
    /// The `try` reducers (tryReduce, tryContains, tryAllSatisfy, tryFirst/tryLast(where:), tryMin/tryMax): as
    /// ``init(downstream:name:policy:reflection:onValue:onCompletion:)``, and a throw from `onValue` cancels the
    /// upstream and fails with the error. This is the one `catch` of every `try` reducer.
    ///
    /// ```swift
    /// ReducerSubscription(
    ///     downstream: subscriber, name: "TryContainsWhere", policy: .unlimitedAtSubscription,
    ///     reflection: .reducer(initial: false), tryOnValue: { try predicate($0) ? .finish(true) : .absorb },
    ///     onCompletion: { $0.erasedReducerFinal(false) })
    /// ```
    @inlinable
    package convenience init(
        downstream: Downstream, name: String, policy: ReducerUpstreamDemand,
        reflection: ReducerReflection<Downstream.Input>,
        tryOnValue: @escaping (UpstreamOutput) throws -> ReducerStep<Downstream.Input, Error>,
        onCompletion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Final
    ) {
        self.init(
            downstream: downstream, name: name, policy: policy, reflection: reflection,
            onValue: { value in
                do { return try tryOnValue(value) } catch { return .fail(error) }
            },
            onCompletion: onCompletion)
    }
}

extension Subscribers.Completion {
    /// A reducer's final signal once its upstream ended: `value` (if any) then `.finished` when the upstream
    /// finished; the failure alone when it failed.
    ///
    /// ```swift
    /// onCompletion: { $0.reducerFinal(count.value) }
    /// ```
    @inlinable
    package func reducerFinal<Value>(_ value: Value?) -> (value: Value?, completion: Self) {
        switch self {
        case .finished: return (value, .finished)
        case .failure: return (nil, self)
        }
    }

    /// ``reducerFinal(_:)`` with the failure erased to `Error`, for the `try` operators.
    @inlinable
    package func erasedReducerFinal<Value>(_ value: Value?) -> (
        value: Value?, completion: Subscribers.Completion<Error>
    ) {
        switch self {
        case .finished: return (value, .finished)
        case .failure(let error): return (nil, .failure(error))
        }
    }
}
