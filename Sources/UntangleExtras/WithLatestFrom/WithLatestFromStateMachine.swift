import Untangle

/// The pure state machine of a withLatestFrom, the `TriggerOperator` its `TriggerSubscription` asks: the two
/// subscriptions, the phase (running with the other publisher's latest value, or terminated), and the demand asked
/// before the upstream's subscription arrived.
///
/// **Demand:** the downstream's demand goes to the upstream (demand asked before the upstream subscribed is kept
/// and requested when it does); the skeleton counts it too, so that a value beyond it waits; the other publisher
/// is asked for `.unlimited` because only its latest value counts.
/// **Thread safety:** none: always mutated under the operator's lock.
@usableFromInline
struct WithLatestFromStateMachine<Input, Latest, Output, Failure: Error>: DescribedTriggerOperator {
    @usableFromInline typealias Signal = Latest
    @usableFromInline typealias SignalFailure = Failure
    @usableFromInline typealias Pending = (Input, Latest)
    @usableFromInline typealias Kept = Latest

    @inlinable
    static var start: TriggerStart { .downstreamThenTriggerThenUpstream }
    @inlinable
    static var demand: TriggerDemand { .counted(.all) }
    @inlinable
    static var name: String { "WithLatestFrom" }

    /// The operator's phase.
    @usableFromInline
    enum Phase {
        /// Running, with the other publisher's latest value once it sent one.
        case running(latest: Latest?)
        /// Ended by a completion or the downstream's cancel: every subscription is refused, every value released.
        case terminated
    }

    @usableFromInline var phase = Phase.running(latest: nil)
    @usableFromInline var upstream = UpstreamSlot.awaiting
    @usableFromInline var other = UpstreamSlot.awaiting
    /// What the downstream asked for before the upstream's subscription arrived.
    @usableFromInline var pendingDemand = Subscribers.Demand.none

    @inlinable
    init() {}

    /// The upstream's subscription: admitted with the demand asked so far, or rejected (ended, or a second one).
    @inlinable
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        let admission = upstream.admit(subscription, requesting: pendingDemand)
        if admission.isAdmitted { pendingDemand = .none }
        return admission
    }

    /// The other publisher's subscription: admitted with `.unlimited`, or rejected (ended, or a second one).
    @inlinable
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        other.admit(subscription, requesting: .unlimited)
    }

    /// The downstream asked for more (or returned it from `receive(_:)`): the upstream subscription to forward it
    /// to; before the upstream subscribed, it is kept for then.
    @inlinable
    mutating func requested(_ demand: Subscribers.Demand) -> Subscription? {
        switch upstream {
        case .awaiting:
            pendingDemand += demand
            return nil
        case .subscribed(let subscription): return subscription
        case .ended: return nil
        }
    }

    /// A value combines with the latest other value; before the first one it is dropped and replaced by a request
    /// for one more.
    @inlinable
    func upstreamSent(_ input: Input) -> TriggerValueDecision<(Input, Latest), Latest> {
        switch phase {
        case .running(let latest?): return .deliver((input, latest))
        case .running(nil): return .skip(returning: .max(1))
        case .terminated: return .skip(returning: .none)
        }
    }

    /// The upstream's completion ends the operator, cancelling the other publisher; a finish follows the values
    /// still waiting for demand, a failure drops them.
    @inlinable
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        let order: TriggerCompletionOrder
        switch completion {
        case .finished: order = .afterWaitingValues
        case .failure: order = .dropWaitingValues
        }
        return terminate(
            TriggerEffects(cancelTrigger: other.end(), released: upstream.end(), completion: completion, order: order))
    }

    /// Every value of the other publisher is decided by ``triggerValue(_:)``.
    @inlinable
    static var decidesTriggerValues: Bool { true }

    /// The other publisher's value becomes the latest; the one it replaces is released after unlocking.
    @inlinable
    mutating func triggerValue(_ signal: Latest) -> TriggerSignalDecision<Output, Latest> {
        guard case .running(let latest) = phase else { return .keep(replaced: signal) }
        phase = .running(latest: signal)
        return .keep(replaced: latest)
    }

    /// The other publisher finishing changes nothing (its latest value stays); its failure ends the operator.
    @inlinable
    mutating func triggerCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard case .failure = completion else { return TriggerEffects(released: other.end()) }
        return terminate(
            TriggerEffects(
                cancelUpstream: upstream.end(), released: other.end(), completion: completion,
                order: .dropWaitingValues))
    }

    @inlinable
    mutating func cancelled() -> TriggerEffects<Self> {
        terminate(TriggerEffects(cancelUpstream: upstream.end(), cancelTrigger: other.end()))
    }

    /// Ends the operator once: the latest value is released with `effects`; later ends do nothing.
    @inlinable
    mutating func terminate(_ effects: TriggerEffects<Self>) -> TriggerEffects<Self> {
        guard case .running(let latest) = phase else { return TriggerEffects() }
        phase = .terminated
        var effects = effects
        effects.releasedValue = latest
        effects.endsDownstream = true
        return effects
    }
}
