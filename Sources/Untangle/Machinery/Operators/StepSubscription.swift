import UntangleSync

/// How an operator built on ``StepSubscription`` treats signals that arrive out of order (before its upstream
/// subscription, or a cancel before it), which Apple's Combine handles differently from operator to operator.
///
/// ```swift
/// StepSubscription(downstream: subscriber, name: "PrefixWhile", behavior: .strict, step: step, completion: { $0 })
/// ```
///
/// **Thread safety:** a value.
@usableFromInline
package struct StepBehavior: Sendable {
    /// What happens to a value or a completion that arrives before the upstream subscription.
    @usableFromInline
    package enum Early: Sendable {
        /// Passed on to the downstream as if subscribed.
        case deliver
        /// Dropped (a value asks for no demand).
        case ignore
        /// Stops the program: the upstream broke the protocol.
        case trap
    }

    @usableFromInline let valueBeforeSubscription: Early
    @usableFromInline let completionBeforeSubscription: Early
    /// Whether `request` before the upstream subscription stops the program (otherwise it is ignored).
    @usableFromInline let requestBeforeSubscriptionTraps: Bool
    /// Whether `cancel` before the upstream subscription is ignored (the subscription, when it comes, is accepted);
    /// otherwise it ends the operator and the late subscription is cancelled.
    @usableFromInline let cancelBeforeSubscriptionIgnored: Bool

    @inlinable
    init(value: Early, completion: Early, requestTraps: Bool, cancelIgnored: Bool) {
        valueBeforeSubscription = value
        completionBeforeSubscription = completion
        requestBeforeSubscriptionTraps = requestTraps
        cancelBeforeSubscriptionIgnored = cancelIgnored
    }

    /// Early values and completions pass on, an early request is ignored, an early cancel ends the operator.
    @inlinable
    package static var passThrough: StepBehavior {
        StepBehavior(value: .deliver, completion: .deliver, requestTraps: false, cancelIgnored: false)
    }

    /// Apple's filter-like operators (`tryFilter`, `tryCompactMap`, `prefix(while:)`, `removeDuplicates`...): an
    /// early value, completion or request stops the program; an early cancel ends the operator.
    @inlinable
    package static var strict: StepBehavior {
        StepBehavior(value: .trap, completion: .trap, requestTraps: true, cancelIgnored: false)
    }

    /// Apple's `drop(while:)` and `output(in:)`: early values, completions, requests and cancels are ignored.
    @inlinable
    package static var lenient: StepBehavior {
        StepBehavior(value: .ignore, completion: .ignore, requestTraps: false, cancelIgnored: true)
    }

    /// Apple's `tryMap` and `tryScan`: early values pass on; early completions, requests and cancels are ignored.
    @inlinable
    package static var valuesOnly: StepBehavior {
        StepBehavior(value: .deliver, completion: .ignore, requestTraps: false, cancelIgnored: true)
    }

    /// Apple's `encode` and `decode`: early values and completions pass on; early requests and cancels are
    /// ignored.
    @inlinable
    package static var signalsOnly: StepBehavior {
        StepBehavior(value: .deliver, completion: .deliver, requestTraps: false, cancelIgnored: true)
    }
}

/// What a ``StepSubscription`` shows in its `customMirror`, as the Combine operator it implements does.
///
/// ```swift
/// StepSubscription(downstream: subscriber, name: "TryFilter", mirror: .downstreamOnly, step: step,
///                  completion: { $0 })
/// ```
///
/// **Thread safety:** the closures run on the thread that asks for the mirror, concurrently with upstream signals:
/// they must not read what the upstream signal path writes (an accumulator, the previous value).
@usableFromInline
package enum StepMirror {
    /// No children.
    case empty
    /// The downstream (nil once released), then the given children.
    case downstream(() -> [Mirror.Child])
    /// The downstream (nil once released), then the last upstream value under this label (nil before the first).
    /// The subscription then keeps a copy of each value, stored in the critical section every value already takes.
    case downstreamAndLastInput(String)
    /// Children computed from the downstream (nil once released), the upstream subscription (nil before it comes
    /// and once released) and whether the operator has ended.
    case custom((_ downstream: Any, _ upstream: Subscription?, _ ended: Bool) -> [Mirror.Child])

    /// The downstream only.
    @inlinable
    package static var downstreamOnly: StepMirror { .downstream { [] } }
}

/// The subscription behind every single-upstream operator that decides value by value: filters, `try` variants,
/// `tryCompactMap`, `prefix(while:)`, `removeDuplicates` and the like. It is both the subscriber it gives the
/// upstream and the subscription it gives the downstream.
///
/// Upstream signals are serialized (the contract), so the `phase` is touched only by them, without a lock. The
/// lock guards the upstream subscription and the downstream reference, which `request` and `cancel` (from any
/// thread) and an ending step race for; `cancel` releases the downstream.
///
/// ```swift
/// upstream.subscribe(StepSubscription(downstream: subscriber, name: "TryFilter", behavior: .strict,
///                                     step: { isIncluded($0) ? .emit($0) : .skip },
///                                     completion: { $0 }))
/// ```
///
/// **Demand:** downstream requests pass straight upstream; a skipped value returns `.max(1)` from `receive(_:)`
/// (one more in its place); an emitted value returns the downstream's demand.
/// **Thread safety:** `request` and `cancel` may be called from any thread; an ending step (finish/fail) cancels
/// upstream outside the lock, exactly once, and no later upstream signal reaches the downstream.
@usableFromInline
final class StepSubscription<UpstreamOutput, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = UpstreamOutput
    @usableFromInline typealias Failure = UpstreamFailure

    /// Where the upstream signal path is: only upstream signals (serialized) read and write it.
    @usableFromInline
    enum Phase {
        case awaiting
        case live
        case ended
    }

    @usableFromInline
    struct State {
        @usableFromInline var upstream = UpstreamSlot.awaiting
        /// Released on cancel and after the completion, so the subscription never keeps its subscriber alive.
        @usableFromInline var downstream: Downstream?
        /// The last upstream value, kept only for a `.downstreamAndLastInput` mirror.
        @usableFromInline var lastInput: UpstreamOutput?

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        /// Ends everything; returns what to cancel and to release (or to deliver a last signal to) after unlocking.
        @inlinable
        mutating func end() -> (Subscription?, Downstream?) {
            defer { downstream = nil }
            return (upstream.end(), downstream)
        }
    }

    @usableFromInline let step: (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>
    @usableFromInline let mapCompletion:
        (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    @usableFromInline let state: LockedBox<State>
    /// Set by the upstream's subscription, an ending step or the upstream's completion; read only on the
    /// (serialized) upstream signal path, so the run-time exclusivity check (about 40 instructions per value) could
    /// never fire.
    @exclusivity(unchecked) @usableFromInline var phase = Phase.awaiting
    @usableFromInline let name: String
    @usableFromInline let behavior: StepBehavior
    @usableFromInline let mirror: StepMirror
    @usableFromInline let recordsLastInput: Bool

    @inlinable
    init(
        downstream: Downstream, name: String, behavior: StepBehavior = .passThrough, mirror: StepMirror = .empty,
        step: @escaping (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>,
        completion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    ) {
        state = LockedBox(tracking: State(downstream: downstream))
        self.name = name
        self.behavior = behavior
        self.mirror = mirror
        if case .downstreamAndLastInput = mirror { recordsLastInput = true } else { recordsLastInput = false }
        self.step = step
        self.mapCompletion = completion
    }

    @inlinable
    func receive(subscription: Subscription) {
        let downstream = state.withCriticalSection { state -> Downstream? in
            guard case .awaiting = state.upstream, let downstream = state.downstream else { return nil }
            state.upstream = .subscribed(subscription)
            return downstream
        }
        CalloutCheck.assertNoLockHeld("an operator passing on its subscription")
        guard let downstream else {
            subscription.cancel()
            return
        }
        if case .awaiting = phase { phase = .live }
        downstream.receive(subscription: self)
    }

    // One lock round-trip per value: the downstream reference must be read under the lock because `cancel()` (from
    // any thread) releases it. The step itself (user code) runs outside the lock.
    @inlinable
    func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        switch phase {
        case .live:
            break
        case .ended:
            return .none
        case .awaiting:
            switch behavior.valueBeforeSubscription {
            case .deliver: break
            case .ignore: return .none
            case .trap: if trapUnlessEnded("a value") { return .none }
            }
        }
        guard
            let downstream = recordsLastInput
                ? downstreamRecording(input) : state.withCriticalSection({ $0.downstream })
        else { return .none }
        switch step(input) {
        case .emit(let value):
            return downstream.receive(value)
        case .skip:
            return .max(1)
        case .emitThenFinish(let value):
            phase = .ended
            // The upstream ends (and is cancelled) first, but the downstream stays in the state while it receives
            // the last value: a `cancel()` made inside that `receive` takes it, and with it the `.finished`, so
            // nothing reaches the subscriber after its own cancel. Only the thread that takes it delivers.
            let (upstream, live) = state.withCriticalSection { ($0.upstream.end(), $0.downstream != nil) }
            upstream?.cancel()
            guard live else { return .none }
            // The downstream's demand is returned even though the upstream is cancelled, as in Combine.
            let demand = downstream.receive(value)
            let (_, finishing) = state.withCriticalSection { $0.end() }
            finishing?.receive(completion: .finished)
            return demand
        case .finish:
            phase = .ended
            let (upstream, downstream) = state.withCriticalSection { $0.end() }
            upstream?.cancel()
            downstream?.receive(completion: .finished)
        case .fail(let error):
            phase = .ended
            let (upstream, downstream) = state.withCriticalSection { $0.end() }
            upstream?.cancel()
            downstream?.receive(completion: .failure(error))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        switch phase {
        case .live:
            break
        case .ended:
            return
        case .awaiting:
            switch behavior.completionBeforeSubscription {
            case .deliver: break
            case .ignore: return
            case .trap: if trapUnlessEnded("a completion") { return }
            }
        }
        phase = .ended
        let (_, downstream) = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("an operator passing on a completion")
        downstream?.receive(completion: mapCompletion(completion))
    }

    /// Reads the downstream and keeps `input` as the last value for the mirror, in one critical section; the value
    /// it replaces is released after unlocking (it may hold a user object).
    @usableFromInline
    func downstreamRecording(_ input: UpstreamOutput) -> Downstream? {
        let (downstream, replaced) = state.withCriticalSection { state -> (Downstream?, UpstreamOutput?) in
            guard let downstream = state.downstream else { return (nil, nil) }
            let replaced = state.lastInput
            state.lastInput = input
            return (downstream, replaced)
        }
        withExtendedLifetime(replaced) {}
        return downstream
    }

    /// For a signal that came before the upstream subscription: stops the program, unless a cancel already ended
    /// the operator (then returns true: ignore the signal).
    @usableFromInline
    func trapUnlessEnded(_ what: StaticString) -> Bool {
        guard case .awaiting = state.withCriticalSection({ $0.upstream }) else { return true }
        preconditionFailure("\(name) received \(what) before its subscription")
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        switch state.withCriticalSection({ $0.upstream }) {
        case .subscribed(let subscription):
            CalloutCheck.assertNoLockHeld("an operator requesting upstream")
            subscription.request(demand)
        case .awaiting:
            precondition(
                !behavior.requestBeforeSubscriptionTraps, "\(name) was asked for values before its subscription")
        case .ended:
            return
        }
    }

    @inlinable
    func cancel() {
        let ignored = behavior.cancelBeforeSubscriptionIgnored
        let (upstream, downstream) = state.withCriticalSection { state -> (Subscription?, Downstream?) in
            if ignored, case .awaiting = state.upstream { return (nil, nil) }
            return state.end()
        }
        withExtendedLifetime(downstream) {}
        CalloutCheck.assertNoLockHeld("an operator cancelling upstream")
        upstream?.cancel()
    }

    @usableFromInline
    var description: String { name }

    @usableFromInline
    var playgroundDescription: Any { name }

    // The mirror reads only what the lock guards (never the upstream-path `phase` or an operator's variables,
    // which another thread may be writing).
    @usableFromInline
    var customMirror: Mirror {
        let (downstream, upstream, lastInput) = state.withCriticalSection { $0.mirrorSnapshot() }
        let shown: Any = downstream.map { $0 as Any } ?? Downstream?.none as Any
        switch mirror {
        case .empty:
            return Mirror(self, children: [])
        case .downstream(let more):
            return Mirror(self, children: [("downstream", shown)] + more())
        case .downstreamAndLastInput(let label):
            return Mirror(self, children: [("downstream", shown), (label, lastInput as Any)])
        case .custom(let children):
            var subscription: Subscription?
            if case .subscribed(let live) = upstream { subscription = live }
            if case .ended = upstream {
                return Mirror(self, children: children(shown, nil, true))
            }
            return Mirror(self, children: children(shown, subscription, false))
        }
    }
}

extension StepSubscription.State {
    @usableFromInline
    func mirrorSnapshot() -> (Downstream?, UpstreamSlot, UpstreamOutput?) {
        (downstream, upstream, lastInput)
    }
}
