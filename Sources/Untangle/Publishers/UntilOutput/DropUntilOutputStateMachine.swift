/// The pure state machine of `drop(untilOutputFrom:)`, the ``TriggerOperator`` its ``TriggerSubscription`` asks:
/// the upstream's phase, the trigger's gate and subscription, and the demand the downstream has requested.
///
/// Apple's rules where they keep the threading contract: a value from the trigger lets the upstream's values
/// through, and the trigger is then released, not cancelled; the trigger's completion before its value publishes
/// the completion and cancels the upstream; the upstream's completion is published. Where Combine goes on after a
/// completion (a second trigger completion published again, an upstream subscribing later accepted, its values then
/// delivered: the conformance suite's `testOtherCompletesBeforeTriggering`), the operator ends at its first
/// completion instead (contract rule 4, listed in ThreadSafety.md): nothing reaches the downstream after it, later
/// subscriptions are refused, and the downstream is released. The upstream is cancelled when the trigger completes
/// first; a trigger still waiting when the upstream completes is released without a cancel, as in Combine.
///
/// **Demand:** every downstream request is added to `requested` and forwarded to the upstream (or when it
/// subscribes). A value dropped before the trigger fires uses up one unit of it: a dropped value beyond it breaks
/// the upstream's contract and stops the program, as in Combine. The trigger is asked for `.max(1)`.
/// **Thread safety:** none: always mutated under the operator's lock.
@usableFromInline
struct DropUntilOutputStateMachine<Input, Signal, Failure: Error>: DescribedTriggerOperator {
    @usableFromInline typealias Output = Input
    @usableFromInline typealias SignalFailure = Failure

    @inlinable
    static var start: TriggerStart { .downstreamThenTriggerThenUpstream }
    @inlinable
    static var demand: TriggerDemand { .passThrough }
    @inlinable
    static var name: String { "DropUntilOutput" }

    /// The upstream's side of the operator.
    @usableFromInline
    enum UpstreamPhase {
        /// Before any completion: the upstream's subscription once it arrived (nil before).
        case open(Subscription?)
        /// A completion was published (the upstream's or the trigger's), or the downstream cancelled: every
        /// subscription is refused, every signal ignored, nothing is kept.
        case ended
    }

    /// The trigger's gate, and its subscription: released when the trigger fires (a later one is then accepted
    /// again, as in Combine).
    @usableFromInline
    enum Gate {
        /// The trigger has neither sent a value nor completed: the upstream's values are dropped.
        case shut(trigger: Subscription?)
        /// The trigger sent a value: the upstream's values pass (for as long as the upstream is open).
        case open(trigger: Subscription?)

        @inlinable
        var trigger: Subscription? {
            switch self {
            case .shut(let trigger), .open(let trigger): return trigger
            }
        }
    }

    @usableFromInline var requested = Subscribers.Demand.none
    @usableFromInline var upstream = UpstreamPhase.open(nil)
    @usableFromInline var gate = Gate.shut(trigger: nil)

    @inlinable
    init() {}

    /// The upstream's subscription: asked for the demand requested so far; refused when it is a second one or
    /// comes after the end.
    @inlinable
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        guard case .open(nil) = upstream else { return .rejected }
        upstream = .open(subscription)
        return .admitted(requesting: requested)
    }

    /// The trigger's subscription: asked for `.max(1)`; refused when one is kept already, or after the end.
    @inlinable
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        guard case .open = upstream, gate.trigger == nil else { return .rejected }
        switch gate {
        case .shut: gate = .shut(trigger: subscription)
        case .open: gate = .open(trigger: subscription)
        }
        return .admitted(requesting: .max(1))
    }

    @inlinable
    mutating func requested(_ demand: Subscribers.Demand) -> Subscription? {
        requested += demand
        guard case .open(let subscription) = upstream else { return nil }
        return subscription
    }

    @inlinable
    mutating func upstreamSent(_ input: Input) -> TriggerValueDecision<Input, Never> {
        if case .open = upstream, case .open = gate { return .deliver(input) }
        // Dropped: before the gate opens, or after the end (a value racing the upstream's cancel). Either way it
        // uses up a unit of the demand requested; one beyond it breaks the upstream's contract, as in Combine.
        precondition(requested > .none, "drop(untilOutputFrom:) received a value it did not request")
        requested -= 1
        return .skip(returning: .none)
    }

    /// The upstream's completion is published and the operator ends; a trigger that has not fired is released, not
    /// cancelled (as in Combine; what it sends later is ignored).
    @inlinable
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard case .open = upstream else { return TriggerEffects() }
        upstream = .ended
        let trigger = gate.trigger
        gate = .shut(trigger: nil)
        return TriggerEffects(released: trigger, completion: completion, endsDownstream: true)
    }

    /// The trigger's value opens the gate; the trigger is released, not cancelled.
    @inlinable
    mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self> {
        let trigger = gate.trigger
        if case .open = upstream {
            gate = .open(trigger: nil)
        } else {
            gate = .shut(trigger: nil)
        }
        return TriggerEffects(released: trigger)
    }

    /// After the trigger's value (or the end), its completion only releases its subscription. Before, it is
    /// published, cancels the upstream, and ends the operator.
    @inlinable
    mutating func triggerCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        let trigger = gate.trigger
        switch (upstream, gate) {
        case (.open(let subscription), .shut):
            upstream = .ended
            gate = .shut(trigger: nil)
            return TriggerEffects(
                cancelUpstream: subscription, released: trigger, completion: completion, endsDownstream: true)
        case (_, .open):
            gate = .open(trigger: nil)
        case (.ended, .shut):
            gate = .shut(trigger: nil)
        }
        return TriggerEffects(released: trigger)
    }

    @inlinable
    mutating func cancelled() -> TriggerEffects<Self> {
        var upstreamSubscription: Subscription?
        if case .open(let subscription) = upstream {
            upstreamSubscription = subscription
        }
        let effects = TriggerEffects<Self>(cancelUpstream: upstreamSubscription, cancelTrigger: gate.trigger)
        upstream = .ended
        gate = .shut(trigger: nil)
        return effects
    }
}
