/// The pure state machine of `drop(untilOutputFrom:)`, the ``TriggerOperator`` its ``TriggerSubscription`` asks:
/// the upstream's phase, the trigger's gate and subscription, and the demand the downstream has requested.
///
/// It keeps Apple's rules, which treat the two sources independently: a value from the trigger (at any time, even
/// after its completion) lets the upstream's values through; the trigger's completion before that publishes the
/// completion and cancels the upstream, but does not end the operator (an upstream subscribing later is still
/// accepted and asked for the demand requested so far, and a later trigger value still opens the gate); the
/// upstream's completion is published once; the trigger is never cancelled when it fires, only released.
///
/// The downstream is kept for as long as Combine could still deliver to it (some signals follow a completion): it
/// is released with the completion delivered once the upstream has completed and the trigger has fired or
/// completed, or when the downstream cancels. (Combine keeps it for as long as the subscription lives.)
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

    /// The upstream's side of the operator, and the downstream's cancel. Combine's own "closed" flag (values
    /// dropped, a new upstream subscription cancelled, the upstream's completion ignored) is: not `.open`.
    @usableFromInline
    enum UpstreamPhase {
        /// Before the upstream's completion: its subscription once it arrived (nil before, and again after a
        /// trigger's completion before its value cancelled it: a new one is then accepted, as in Combine).
        case open(Subscription?)
        /// The upstream completed (its completion was published once). Its subscription is kept: requests still
        /// reach it, and a trigger's completion before its value still cancels it, as in Combine.
        case completed(Subscription?)
        /// The downstream cancelled: every subscription is refused, nothing is kept.
        case cancelled

        /// The upstream subscription requests go to (and a trigger's completion cancels), if any.
        @inlinable
        var subscription: Subscription? {
            switch self {
            case .open(let subscription), .completed(let subscription): return subscription
            case .cancelled: return nil
            }
        }
    }

    /// The trigger's gate, and its subscription: released when the trigger fires (a later one is then accepted
    /// again, as in Combine), kept when it completes first.
    @usableFromInline
    enum Gate {
        /// The trigger has neither sent a value nor completed: the upstream's values are dropped.
        case shut(trigger: Subscription?)
        /// The trigger completed before sending a value (its completion was published): still shut; a later
        /// trigger value still opens it, a later completion is published again, as in Combine.
        case triggerCompletedFirst(trigger: Subscription?)
        /// The trigger sent a value: the upstream's values pass (for as long as the upstream is open).
        case open(trigger: Subscription?)

        @inlinable
        var trigger: Subscription? {
            switch self {
            case .shut(let trigger), .triggerCompletedFirst(let trigger), .open(let trigger): return trigger
            }
        }
    }

    @usableFromInline var requested = Subscribers.Demand.none
    @usableFromInline var upstream = UpstreamPhase.open(nil)
    @usableFromInline var gate = Gate.shut(trigger: nil)

    @inlinable
    init() {}

    /// Whether nothing more can reach the downstream: the upstream completed and the trigger fired or completed.
    @inlinable
    var downstreamDone: Bool {
        guard case .completed = upstream else { return false }
        if case .shut = gate { return false }
        return true
    }

    /// The upstream's subscription: asked for the demand requested so far; refused when it is a second one or
    /// comes after the end.
    @inlinable
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        guard case .open(nil) = upstream else { return .rejected }
        upstream = .open(subscription)
        return .admitted(requesting: requested)
    }

    /// The trigger's subscription: asked for `.max(1)`; refused when one is kept already, or after the cancel.
    @inlinable
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        if case .cancelled = upstream { return .rejected }
        guard gate.trigger == nil else { return .rejected }
        switch gate {
        case .shut: gate = .shut(trigger: subscription)
        case .triggerCompletedFirst: gate = .triggerCompletedFirst(trigger: subscription)
        case .open: gate = .open(trigger: subscription)
        }
        return .admitted(requesting: .max(1))
    }

    @inlinable
    mutating func requested(_ demand: Subscribers.Demand) -> Subscription? {
        requested += demand
        return upstream.subscription
    }

    @inlinable
    mutating func upstreamSent(_ input: Input) -> TriggerValueDecision<Input, Never> {
        if case .open = gate, case .open = upstream { return .deliver(input) }
        precondition(requested > .none, "drop(untilOutputFrom:) received a value it did not request")
        requested -= 1
        return .skip(returning: .none)
    }

    /// The upstream's completion is published once; the downstream is released with it if the gate is no longer
    /// shut.
    @inlinable
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard case .open(let subscription) = upstream else { return TriggerEffects() }
        upstream = .completed(subscription)
        return TriggerEffects(completion: completion, endsDownstream: downstreamDone)
    }

    /// The trigger's value opens the gate; the trigger is released, not cancelled. The downstream stays even if
    /// the upstream has completed: only a delivered completion releases it (as Combine keeps it until the
    /// subscription goes, which the conformance suite's lifecycle tests observe).
    @inlinable
    mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self> {
        let trigger = gate.trigger
        gate = .open(trigger: nil)
        return TriggerEffects(released: trigger)
    }

    /// After the trigger's value, its completion only releases its subscription. Before, it is published and cancels
    /// the upstream, whose slot reopens (as in Combine).
    @inlinable
    mutating func triggerCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        if case .open(let trigger) = gate {
            gate = .open(trigger: nil)
            return TriggerEffects(released: trigger)
        }
        let cancel: Subscription?
        switch upstream {
        case .open(let subscription):
            cancel = subscription
            upstream = .open(nil)
        case .completed(let subscription):
            cancel = subscription
            upstream = .completed(nil)
        case .cancelled:
            return TriggerEffects()
        }
        gate = .triggerCompletedFirst(trigger: gate.trigger)
        return TriggerEffects(cancelUpstream: cancel, completion: completion, endsDownstream: downstreamDone)
    }

    @inlinable
    mutating func cancelled() -> TriggerEffects<Self> {
        let effects = TriggerEffects<Self>(cancelUpstream: upstream.subscription, cancelTrigger: gate.trigger)
        upstream = .cancelled
        gate = .shut(trigger: nil)
        return effects
    }
}
