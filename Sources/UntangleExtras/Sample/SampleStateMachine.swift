import Untangle

/// The pure state machine of a sample, the `TriggerOperator` its `TriggerSubscription` asks: its phase (running
/// with both sources' subscriptions, or terminated), and the upstream's latest value not yet sampled.
///
/// **Demand:** both the upstream and the sampler are asked for `.unlimited`; the skeleton counts the downstream's
/// demand and keeps the latest sampled value beyond it, replaced by any newer sample.
/// **Thread safety:** none: always mutated under the operator's lock.
@usableFromInline
struct SampleStateMachine<Value, Signal, Failure: Error>: DescribedTriggerOperator {
    @usableFromInline typealias Input = Value
    @usableFromInline typealias Output = Value
    @usableFromInline typealias SignalFailure = Failure
    @usableFromInline typealias Kept = Value

    @inlinable
    static var start: TriggerStart { .downstreamThenUpstreamThenTrigger }
    @inlinable
    static var demand: TriggerDemand { .counted(.latest) }
    @inlinable
    static var name: String { "Sample" }

    /// The sample's phase.
    @usableFromInline
    enum Phase {
        /// Running: the upstream's side (ended: it finished, a later subscription is refused, and the next tick
        /// delivers the latest value and ends the sample), and the sampler's subscription once it arrived.
        case running(upstream: UpstreamSlot, sampler: Subscription?)
        /// Ended (by a tick after a finish, a failure, or the downstream's cancel): every subscription is refused,
        /// every value released.
        case terminated
    }

    @usableFromInline var phase = Phase.running(upstream: .awaiting, sampler: nil)
    /// The latest value not yet sampled: kept beside the phase, not in it, because every upstream value replaces it
    /// (rebuilding the phase would copy both subscriptions each time).
    @usableFromInline var latest: Value?

    @inlinable
    init() {}

    @inlinable
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        guard case .running(.awaiting, let sampler) = phase else { return .rejected }
        phase = .running(upstream: .subscribed(subscription), sampler: sampler)
        return .admitted(requesting: .unlimited)
    }

    @inlinable
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        guard case .running(let upstream, nil) = phase else { return .rejected }
        phase = .running(upstream: upstream, sampler: subscription)
        return .admitted(requesting: .unlimited)
    }

    /// The upstream is asked for `.unlimited`: requests only count in the skeleton.
    @inlinable
    func requested(_ demand: Subscribers.Demand) -> Subscription? { nil }

    /// The value becomes the latest; the one it replaces is released after unlocking.
    @inlinable
    mutating func upstreamSent(_ input: Value) -> TriggerValueDecision<Value, Value> {
        guard case .running = phase else { return .keep(replaced: input) }
        defer { latest = input }
        return .keep(replaced: latest)
    }

    /// A finish waits for the next tick (the subscription is let go of); a failure ends the sample at once.
    @inlinable
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard case .running(let upstream, let sampler) = phase else { return TriggerEffects() }
        guard case .failure = completion else {
            phase = .running(upstream: .ended, sampler: sampler)
            return TriggerEffects(released: upstream.subscription)
        }
        return terminate(TriggerEffects(cancelTrigger: sampler, released: upstream.subscription), completion)
    }

    @inlinable
    mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self> {
        tick(samplerFinished: false)
    }

    /// The sampler's finish counts as a last tick; its failure ends the sample at once.
    @inlinable
    mutating func triggerCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard case .failure = completion else { return tick(samplerFinished: true) }
        guard case .running(let upstream, let sampler) = phase else { return TriggerEffects() }
        return terminate(TriggerEffects(cancelUpstream: upstream.subscription, released: sampler), completion)
    }

    @inlinable
    mutating func cancelled() -> TriggerEffects<Self> {
        guard case .running(let upstream, let sampler) = phase else { return TriggerEffects() }
        phase = .terminated
        defer { latest = nil }
        return TriggerEffects(cancelUpstream: upstream.subscription, cancelTrigger: sampler, releasedValue: latest)
    }

    /// A tick takes the latest value, and ends the sample if the upstream or the sampler has finished (cancelling
    /// the source that has not).
    @inlinable
    mutating func tick(samplerFinished: Bool) -> TriggerEffects<Self> {
        guard case .running(let upstream, let sampler) = phase else { return TriggerEffects() }
        defer { latest = nil }
        guard upstream.isEnded || samplerFinished else { return TriggerEffects(value: latest) }
        phase = .terminated
        return TriggerEffects(
            cancelUpstream: upstream.subscription, cancelTrigger: samplerFinished ? nil : sampler,
            released: samplerFinished ? sampler : nil, value: latest, completion: .finished, endsDownstream: true)
    }

    /// Ends the sample with a failure: values still waiting for demand are dropped.
    @inlinable
    mutating func terminate(
        _ effects: TriggerEffects<Self>, _ failure: Subscribers.Completion<Failure>
    ) -> TriggerEffects<Self> {
        phase = .terminated
        var effects = effects
        effects.releasedValue = latest
        latest = nil
        effects.completion = failure
        effects.order = .dropWaitingValues
        effects.endsDownstream = true
        return effects
    }
}
