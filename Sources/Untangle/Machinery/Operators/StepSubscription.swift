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
/// `tryCompactMap`, `prefix(while:)`, `removeDuplicates` and the like, in Untangle and in UntangleExtras
/// (`withUnretained`, `dematerialize`, `using`, `pairwise`). It is both the subscriber it gives the upstream and the
/// subscription it gives the downstream.
///
/// Every decision is the ``StepStateMachine``'s, under one lock: where the operator stands (awaiting, live,
/// finishing its last value, ended), which `request` and `cancel` (from any thread) and the upstream's signals race
/// for. The step itself (user code) and every callout run after unlocking; `cancel` releases the downstream.
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
/// upstream outside the lock, exactly once, and no later upstream signal reaches the downstream. `onEnd` runs
/// once, outside every lock, when the operator ends (cancel, an ending step, or the completion delivered).
@usableFromInline
package final class StepSubscription<UpstreamOutput, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline package typealias Input = UpstreamOutput
    @usableFromInline package typealias Failure = UpstreamFailure
    @usableFromInline typealias Machine = StepStateMachine<Downstream, UpstreamOutput>

    @usableFromInline let step: (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>
    @usableFromInline let mapCompletion:
        (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    @usableFromInline let state: LockedBox<Machine>
    @usableFromInline let name: String
    @usableFromInline let behavior: StepBehavior
    @usableFromInline let mirror: StepMirror
    @usableFromInline let recordsLastInput: Bool

    /// - Parameter onEnd: runs once, outside every lock, when the operator ends: on cancel, after an ending step,
    ///   or right after the upstream's completion was handed downstream (`using` releases its resource there).
    @inlinable
    package init(
        downstream: Downstream, name: String, behavior: StepBehavior = .passThrough, mirror: StepMirror = .empty,
        onEnd: (() -> Void)? = nil,
        step: @escaping (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>,
        completion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    ) {
        state = LockedBox(tracking: Machine(downstream: downstream, onEnd: onEnd))
        self.name = name
        self.behavior = behavior
        self.mirror = mirror
        if case .downstreamAndLastInput = mirror { recordsLastInput = true } else { recordsLastInput = false }
        self.step = step
        self.mapCompletion = completion
    }

    /// The `try` operators (tryMap, tryFilter, tryCompactMap, tryScan, tryPrefixWhile, encode, decode, ...): as
    /// ``init(downstream:name:behavior:mirror:onEnd:step:completion:)``, with a step that may throw: a throw cancels
    /// the upstream and fails with the error, and the upstream's own failure passes through as `Error`. This is the one
    /// `catch` of every `try` operator on this skeleton.
    ///
    /// ```swift
    /// StepSubscription(downstream: subscriber, name: "TryMap", tryStep: { .emit(try transform($0)) })
    /// ```
    @inlinable
    package convenience init(
        downstream: Downstream, name: String, behavior: StepBehavior = .passThrough, mirror: StepMirror = .empty,
        onEnd: (() -> Void)? = nil,
        tryStep: @escaping (UpstreamOutput) throws -> OperatorStep<Downstream.Input, Error>
    ) where Downstream.Failure == Error {
        self.init(
            downstream: downstream, name: name, behavior: behavior, mirror: mirror, onEnd: onEnd,
            step: { value in
                do { return try tryStep(value) } catch { return .fail(error) }
            },
            completion: { $0.mapFailure { $0 as Error } })
    }

    @inlinable
    package func receive(subscription: Subscription) {
        let downstream = state.withCriticalSection { $0.subscribed(subscription) }
        CalloutCheck.assertNoLockHeld("an operator passing on its subscription")
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    // One lock round-trip per value: the downstream reference must be read under the lock because `cancel()` (from
    // any thread) releases it. The step itself (user code) runs outside the lock.
    @inlinable
    package func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        let early = behavior.valueBeforeSubscription
        guard
            let downstream = recordsLastInput
                ? valueArrivedRecording(input, early: early)
                : state.withCriticalSection({ $0.valueArrived(early: early, name: self.name) })
        else { return .none }
        CalloutCheck.assertNoLockHeld("an operator running its step")
        switch step(input) {
        case .emit(let value):
            return downstream.receive(value)
        case .skip:
            return .max(1)
        case .emitThenFinish(let value):
            // The upstream ends (and is cancelled) first, but the downstream stays in the state while it receives
            // the last value: a `cancel()` made inside that `receive` takes it, and with it the `.finished`, so
            // nothing reaches the subscriber after its own cancel. Only the thread that takes it delivers.
            let (upstream, deliver) = state.withCriticalSection { $0.lastValueWillGo() }
            upstream?.cancel()
            guard deliver else { return .none }
            // The downstream's demand is returned even though the upstream is cancelled, as in Combine.
            let demand = downstream.receive(value)
            let (finishing, onEnd) = state.withCriticalSection { $0.lastValueDelivered() }
            finishing?.receive(completion: .finished)
            onEnd?()
            return demand
        case .finish:
            end(with: .finished)
        case .fail(let error):
            end(with: .failure(error))
        }
        return .none
    }

    /// An ending step: cancels the upstream, then completes the downstream (unless it cancelled meanwhile).
    @inlinable
    func end(with completion: Subscribers.Completion<Downstream.Failure>) {
        let ending = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("an operator ending")
        ending.upstream?.cancel()
        ending.downstream?.receive(completion: completion)
        ending.onEnd?()
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let early = behavior.completionBeforeSubscription
        let ending = state.withCriticalSection { $0.completed(early: early, name: self.name) }
        CalloutCheck.assertNoLockHeld("an operator passing on a completion")
        ending.downstream?.receive(completion: mapCompletion(completion))
        ending.onEnd?()
    }

    /// Decides about a value and keeps it as the last value for the mirror, in one critical section; the value it
    /// replaces is released after unlocking (it may hold a user object).
    //
    // No tuple result: code that is not specialized would look up the tuple's type metadata on every value.
    @usableFromInline
    func valueArrivedRecording(_ input: UpstreamOutput, early: StepBehavior.Early) -> Downstream? {
        var replaced: UpstreamOutput?
        let downstream = state.withCriticalSection { machine -> Downstream? in
            guard let downstream = machine.valueArrived(early: early, name: self.name) else { return nil }
            replaced = machine.record(input)
            return downstream
        }
        withExtendedLifetime(replaced) {}
        return downstream
    }

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        switch state.withCriticalSection({ $0.request() }) {
        case .forward(let subscription):
            CalloutCheck.assertNoLockHeld("an operator requesting upstream")
            subscription.request(demand)
        case .early:
            precondition(
                !behavior.requestBeforeSubscriptionTraps, "\(name) was asked for values before its subscription")
        case .ignore:
            return
        }
    }

    @inlinable
    package func cancel() {
        let ignoringEarly = behavior.cancelBeforeSubscriptionIgnored
        let ending = state.withCriticalSection { $0.cancelled(ignoringEarly: ignoringEarly) }
        withExtendedLifetime(ending.downstream) {}
        CalloutCheck.assertNoLockHeld("an operator cancelling upstream")
        ending.upstream?.cancel()
        ending.onEnd?()
    }

    @usableFromInline
    package var description: String { name }

    @usableFromInline
    package var playgroundDescription: Any { name }

    // The mirror reads only what the lock guards (never an operator's variables, which the upstream signal path may
    // be writing on another thread).
    @usableFromInline
    package var customMirror: Mirror {
        let (downstream, upstream, ended, lastInput) = state.withCriticalSection { $0.snapshot }
        let shown: Any = downstream.map { $0 as Any } ?? Downstream?.none as Any
        switch mirror {
        case .empty:
            return Mirror(self, children: [])
        case .downstream(let more):
            return Mirror(self, children: [("downstream", shown)] + more())
        case .downstreamAndLastInput(let label):
            return Mirror(self, children: [("downstream", shown), (label, lastInput as Any)])
        case .custom(let children):
            return Mirror(self, children: children(shown, upstream, ended))
        }
    }
}
