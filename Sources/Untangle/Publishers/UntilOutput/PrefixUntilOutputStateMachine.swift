/// The pure state machine of `prefix(untilOutputFrom:)`, the ``TriggerOperator`` its ``TriggerSubscription`` asks:
/// the upstream's and the trigger's subscriptions, each awaited, live or ended.
///
/// As in Combine, the downstream gets its subscription when the upstream's arrives; the trigger's first value
/// cancels the upstream and finishes the downstream (even before the upstream subscribed: then the downstream sees
/// only the completion, and the upstream is cancelled on arrival); the trigger's completion only stops listening to
/// it; the upstream's completion cancels the trigger. A trigger firing while another thread is calling the
/// downstream queues its `.finished` for that thread (the skeleton's turn). The downstream is released once its
/// completion has been delivered, or on cancel (Combine keeps it for as long as the subscription lives).
///
/// One departure from Combine: when the trigger fires before the upstream has subscribed, Combine sends the
/// downstream `.finished` without any subscription; here the downstream first receives this subscription (already
/// finished), so that every subscriber sees its subscription first.
///
/// **Demand:** downstream requests pass straight to the upstream once it has subscribed (earlier ones are
/// ignored, as in Combine); the trigger is asked for `.max(1)`.
/// **Thread safety:** none: always mutated under the operator's lock.
@usableFromInline
struct PrefixUntilOutputStateMachine<Input, Signal, SignalFailure: Error, Failure: Error>: TriggerOperator {
    @usableFromInline typealias Output = Input

    @inlinable
    static var start: TriggerStart { .triggerThenUpstreamWithDownstream }
    @inlinable
    static var demand: TriggerDemand { .passThrough }

    // Each source's subscription: awaited, live, or ended (a later subscription is cancelled).
    @usableFromInline var upstream = UpstreamSlot.awaiting
    @usableFromInline var trigger = UpstreamSlot.awaiting

    @inlinable
    init() {}

    @inlinable
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        upstream.admit(subscription, requesting: .none)
    }

    @inlinable
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        trigger.admit(subscription, requesting: .max(1))
    }

    @inlinable
    func requested(_ demand: Subscribers.Demand) -> Subscription? {
        upstream.subscription
    }

    @inlinable
    func upstreamSent(_ input: Input) -> TriggerValueDecision<Input, Never> {
        guard case .subscribed = upstream else { return .skip(returning: .none) }
        return .deliver(input)
    }

    /// The upstream's completion cancels the trigger and goes downstream, unless the upstream never subscribed or
    /// the trigger ended it first; its subscription is released.
    @inlinable
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        let live = upstream.end()
        let trigger = trigger.end()
        guard live != nil else { return TriggerEffects(cancelTrigger: trigger) }
        return TriggerEffects(cancelTrigger: trigger, released: live, completion: completion, endsDownstream: true)
    }

    /// The trigger's first value cancels the upstream and finishes the downstream; the trigger is released, not
    /// cancelled, as in Combine. A value before its subscription is ignored.
    @inlinable
    mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self> {
        guard case .subscribed = trigger else { return TriggerEffects() }
        return TriggerEffects(
            cancelUpstream: upstream.end(), released: trigger.end(), completion: .finished, endsDownstream: true)
    }

    /// The trigger's completion only stops listening to it.
    @inlinable
    mutating func triggerCompleted(_ completion: Subscribers.Completion<SignalFailure>) -> TriggerEffects<Self> {
        TriggerEffects(released: trigger.end())
    }

    @inlinable
    mutating func cancelled() -> TriggerEffects<Self> {
        TriggerEffects(cancelUpstream: upstream.end(), cancelTrigger: trigger.end())
    }
}
