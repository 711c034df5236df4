/// The decisions of an operator with a main upstream and a trigger, another publisher whose signals may reach the
/// downstream: `drop(untilOutputFrom:)`, `prefix(untilOutputFrom:)`, and in UntangleExtras `sample` and
/// `withLatestFrom`. The operator is a pure state machine: ``TriggerSubscription`` calls it under its lock, one method
/// per signal, and does what it answers after unlocking (subscribing, requesting, cancelling, releasing, and calling
/// the downstream through the one turn ``TriggerStateMachine`` keeps).
///
/// ```swift
/// struct TakeUntil<Input, Signal, SignalFailure: Error, Failure: Error>: TriggerOperator {  // prefix(untilOutputFrom:)
///     var upstream = UpstreamSlot.awaiting
///     var trigger = UpstreamSlot.awaiting
///     func upstreamSent(_ input: Input) -> TriggerValueDecision<Input, Never> { .deliver(input) }
///     mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self> {
///         TriggerEffects(cancelUpstream: upstream.end(), released: trigger.end(), completion: .finished,
///                        endsDownstream: true)
///     }
///     // ... one method per other signal
/// }
/// ```
///
/// Every method runs under the skeleton's lock: it must not call out (no user code, no subscription calls) and
/// returns what the skeleton does after unlocking.
///
/// **Demand:** per ``demand``; the operator answers where requests go (``requested(_:)``) and what each new
/// subscription is asked for.
/// **Thread safety:** none of its own: the skeleton mutates it under its lock only.
@usableFromInline
package protocol TriggerOperator {
    /// The main upstream's values.
    associatedtype Input
    /// The trigger's values.
    associatedtype Signal
    /// The trigger's failure.
    associatedtype SignalFailure: Error
    /// What the downstream receives.
    associatedtype Output
    /// The upstream's (and the downstream's) failure.
    associatedtype Failure: Error
    /// What a delivered upstream value carries out of the lock, where the skeleton's `output` closure turns it into
    /// an `Output` (`withLatestFrom`: the value and the latest other value, for its selector).
    associatedtype Pending = Input
    /// A value the operator lets go of under the lock (a replaced latest value), released after unlocking.
    associatedtype Kept = Never

    /// When the downstream gets its subscription, and in which order the sources are subscribed.
    static var start: TriggerStart { get }
    /// Who counts the downstream's demand.
    static var demand: TriggerDemand { get }

    /// The upstream's subscription arrived: what to ask it for, or reject (cancel) it.
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission
    /// The trigger's subscription arrived: what to ask it for, or reject (cancel) it.
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission
    /// The downstream requested `demand` (or, with counted demand, returned it from `receive(_:)`): the
    /// subscription to pass it to, if any.
    mutating func requested(_ demand: Subscribers.Demand) -> Subscription?
    /// An upstream value.
    mutating func upstreamSent(_ input: Input) -> TriggerValueDecision<Pending, Kept>
    /// The upstream completed.
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self>
    /// A trigger value: the general answer (asked for every trigger value unless ``decidesTriggerValues``, and
    /// then only when ``triggerValue(_:)`` answers `.decide`).
    mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self>
    /// Whether the skeleton asks ``triggerValue(_:)`` first for each trigger value (a per-value path of the
    /// operator's: `withLatestFrom`'s latest value, `sample`'s tick); false: every trigger value goes to
    /// ``triggerSent(_:)``.
    static var decidesTriggerValues: Bool { get }
    /// A trigger value, on the per-value path (asked only when ``decidesTriggerValues``): keep it, deliver a value,
    /// or `.decide` (having changed nothing) to have the skeleton ask ``triggerSent(_:)``.
    mutating func triggerValue(_ signal: Signal) -> TriggerSignalDecision<Output, Kept>
    /// The trigger completed.
    mutating func triggerCompleted(_ completion: Subscribers.Completion<SignalFailure>) -> TriggerEffects<Self>
    /// The downstream cancelled: the subscriptions to cancel, what to release.
    mutating func cancelled() -> TriggerEffects<Self>
}

extension TriggerOperator {
    /// By default the downstream gets its subscription with the upstream's, so that its requests go straight to
    /// the upstream (`prefix(untilOutputFrom:)`'s order).
    @inlinable
    package static var start: TriggerStart { .triggerThenUpstreamWithDownstream }

    /// By default nobody counts demand: the upstream's values go downstream at once, as through `map`.
    @inlinable
    package static var demand: TriggerDemand { .passThrough }

    /// By default every trigger value goes to ``triggerSent(_:)``.
    @inlinable
    package static var decidesTriggerValues: Bool { false }

    /// By default the general answer decides (``triggerSent(_:)``).
    @inlinable
    package mutating func triggerValue(_ signal: Signal) -> TriggerSignalDecision<Output, Kept> { .decide }

    /// By default the per-value answer, as effects; an operator whose ``triggerValue(_:)`` answers `.decide`
    /// writes its own.
    @inlinable
    package mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self> {
        switch triggerValue(signal) {
        case .keep(let replaced): return TriggerEffects(releasedValue: replaced)
        case .deliver(let value): return TriggerEffects(value: value)
        case .decide: impossibleEvent("\(Self.self): triggerValue(_:) answered .decide without a triggerSent(_:)")
        }
    }
}

/// A ``TriggerOperator`` whose subscription (and its trigger's subscriber) describes itself by this name, with an
/// empty mirror, as Combine's `drop(untilOutputFrom:)` does. (`prefix(untilOutputFrom:)`'s does not describe itself.)
///
/// **Demand:** none of its own.
/// **Thread safety:** a static name.
@usableFromInline
package protocol DescribedTriggerOperator: TriggerOperator {
    /// The subscription's `description` and `playgroundDescription`.
    static var name: String { get }
}

/// When the downstream of a ``TriggerSubscription`` gets its subscription, and in which order the sources are
/// subscribed, after Combine's operators.
///
/// **Demand:** none.
/// **Thread safety:** a value.
@usableFromInline
package enum TriggerStart {
    /// The downstream first, then the trigger, then the upstream (`drop(untilOutputFrom:)`, `withLatestFrom`).
    case downstreamThenTriggerThenUpstream
    /// The downstream first, then the upstream, then the trigger (`sample`).
    case downstreamThenUpstreamThenTrigger
    /// The trigger, then the upstream; the downstream gets its subscription when the upstream's arrives, or just
    /// before a completion that comes first (`prefix(untilOutputFrom:)`).
    case triggerThenUpstreamWithDownstream
}

/// Who counts the downstream's demand in a ``TriggerSubscription``.
///
/// **Demand:** see each case.
/// **Thread safety:** a value.
@usableFromInline
package enum TriggerDemand {
    /// Nobody, as in Combine's `drop`/`prefix(untilOutputFrom:)`: requests go where ``TriggerOperator/requested(_:)``
    /// says, an upstream value is delivered at once on its own thread (nested in the downstream's callout if it
    /// comes from there), and the demand the downstream returns goes back as the upstream's `receive(_:)` result.
    case passThrough
    /// The skeleton: a value beyond the downstream's demand waits (see ``TriggerWaiting``), and the demand the
    /// downstream returns is added to the count and handed to ``TriggerOperator/requested(_:)`` like a request.
    case counted(TriggerWaiting)
}

/// Which values beyond demand a counted ``TriggerSubscription`` keeps.
///
/// **Demand:** what waits is delivered as demand arrives, oldest first.
/// **Thread safety:** a value.
@usableFromInline
package enum TriggerWaiting {
    /// Every one (`withLatestFrom`: only a misbehaving upstream sends beyond demand).
    case all
    /// The latest one, replacing an older one still waiting (`sample`).
    case latest
}

/// Where a completion goes relative to the values waiting for demand in a counted ``TriggerSubscription``.
///
/// **Demand:** see each case.
/// **Thread safety:** a value.
@usableFromInline
package enum TriggerCompletionOrder {
    /// After every waiting value (each still needs demand).
    case afterWaitingValues
    /// At once: the waiting values are dropped.
    case dropWaitingValues
}

/// What a ``TriggerOperator`` decides about one upstream value.
///
/// **Demand:** `.skip` returns its demand from the upstream's `receive(_:)`; `.deliver` uses one unit of the
/// downstream's demand (counted) or none (pass-through).
/// **Thread safety:** a value.
@usableFromInline
package enum TriggerValueDecision<Pending, Kept> {
    /// Deliver it (the skeleton's `output` turns it into the downstream's value, after unlocking).
    case deliver(Pending)
    /// Deliver nothing and return `demand` to the upstream.
    case skip(returning: Subscribers.Demand)
    /// The operator keeps it; `replaced` is what it let go of, released after unlocking.
    case keep(replaced: Kept?)
}

// Performance: a value of the operator's own loadable types (no `Subscription` existential, which makes a type
// address-only: every copy of `TriggerEffects` goes through its value-witness functions, even specialized), so the
// per-value path of a trigger value copies nothing through the runtime.
/// What a ``TriggerOperator`` decides about one trigger value on its per-value path
/// (``TriggerOperator/triggerValue(_:)``).
///
/// **Demand:** `.deliver`'s value waits for demand when the skeleton counts it.
/// **Thread safety:** a value.
@usableFromInline
package enum TriggerSignalDecision<Output, Kept> {
    /// Nothing for the downstream; `replaced` is what the operator let go of, released after unlocking.
    case keep(replaced: Kept?)
    /// Deliver this value to the downstream.
    case deliver(Output)
    /// Not decided here, and nothing changed: the skeleton asks ``TriggerOperator/triggerSent(_:)`` (under the
    /// lock again: the trigger's signals are serialized, so only a signal of another source can come in between).
    case decide
}

/// What a ``TriggerOperator`` answers for a completion, a trigger value or the downstream's cancel: subscriptions
/// to cancel or to let go of, a value and a completion for the downstream, and whether the downstream can be
/// released once they are delivered.
///
/// ```swift
/// return TriggerEffects(cancelUpstream: upstream.end(), completion: .finished, endsDownstream: true)
/// ```
///
/// **Demand:** `value` waits for demand when the skeleton counts it.
/// **Thread safety:** a value, decided under the lock and carried out after it.
@usableFromInline
package struct TriggerEffects<Operator: TriggerOperator> {
    /// The upstream subscription to cancel.
    @usableFromInline package var cancelUpstream: Subscription?
    /// The trigger subscription to cancel.
    @usableFromInline package var cancelTrigger: Subscription?
    /// A subscription let go of without cancelling it (as Combine releases a trigger that fired).
    @usableFromInline package var released: Subscription?
    /// A value the operator let go of.
    @usableFromInline package var releasedValue: Operator.Kept?
    /// A value for the downstream.
    @usableFromInline package var value: Operator.Output?
    /// A completion for the downstream, after `value`.
    @usableFromInline package var completion: Subscribers.Completion<Operator.Failure>?
    /// Where `completion` goes relative to values still waiting for demand.
    @usableFromInline package var order: TriggerCompletionOrder
    /// Nothing more can reach the downstream after this: release it once what is queued was delivered.
    @usableFromInline package var endsDownstream: Bool

    /// Effects; every part defaults to nothing.
    @inlinable
    package init(
        cancelUpstream: Subscription? = nil, cancelTrigger: Subscription? = nil, released: Subscription? = nil,
        releasedValue: Operator.Kept? = nil, value: Operator.Output? = nil,
        completion: Subscribers.Completion<Operator.Failure>? = nil,
        order: TriggerCompletionOrder = .afterWaitingValues,
        endsDownstream: Bool = false
    ) {
        self.cancelUpstream = cancelUpstream
        self.cancelTrigger = cancelTrigger
        self.released = released
        self.releasedValue = releasedValue
        self.value = value
        self.completion = completion
        self.order = order
        self.endsDownstream = endsDownstream
    }
}
