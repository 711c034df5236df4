import Untangle

/// The pure state machine of a sample, the `TriggerOperator` its `TriggerSubscription` asks: its phase (running,
/// the upstream finished, or terminated), both sources' subscriptions, and the upstream's latest value not yet
/// sampled.
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
    // Payload-free, and the subscriptions beside it: a `Subscription` existential in the phase would make every
    // per-value check of it (`upstreamSent`, `triggerValue`) copy it through its value witnesses.
    @usableFromInline
    enum Phase {
        /// Running.
        case running
        /// The upstream finished: a later upstream subscription is refused, and the next tick delivers the latest
        /// value and ends the sample.
        case upstreamFinished
        /// Ended (by a tick after a finish, a failure, or the downstream's cancel): every subscription is refused,
        /// every value released.
        case terminated
    }

    @usableFromInline var phase = Phase.running
    /// The upstream's subscription (ended once the upstream finished or the sample ended).
    @usableFromInline var upstream = UpstreamSlot.awaiting
    /// The sampler's subscription once it arrived (nil again once the sample ended).
    @usableFromInline var sampler: Subscription?
    /// The latest value not yet sampled.
    @usableFromInline var latest: Value?

    @inlinable
    init() {}

    @inlinable
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        upstream.admit(subscription, requesting: .unlimited)
    }

    @inlinable
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        guard phase != .terminated, sampler == nil else { return .rejected }
        sampler = subscription
        return .admitted(requesting: .unlimited)
    }

    /// The upstream is asked for `.unlimited`: requests only count in the skeleton.
    @inlinable
    func requested(_ demand: Subscribers.Demand) -> Subscription? { nil }

    /// The value becomes the latest; the one it replaces is released after unlocking.
    @inlinable
    mutating func upstreamSent(_ input: Value) -> TriggerValueDecision<Value, Value> {
        guard phase != .terminated else { return .keep(replaced: input) }
        defer { latest = input }
        return .keep(replaced: latest)
    }

    /// A finish waits for the next tick (the subscription is let go of); a failure ends the sample at once.
    @inlinable
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard phase != .terminated else { return TriggerEffects() }
        guard case .failure = completion else {
            phase = .upstreamFinished
            return TriggerEffects(released: upstream.end())
        }
        return terminate(TriggerEffects(cancelTrigger: sampler, released: upstream.end()), completion)
    }

    /// Every tick of the sampler is decided by ``triggerValue(_:)``, the last one (after the upstream finished) by
    /// ``triggerSent(_:)``.
    @inlinable
    static var decidesTriggerValues: Bool { true }

    /// A tick takes the latest value, if any; after the upstream finished it is left to ``triggerSent(_:)``.
    @inlinable
    mutating func triggerValue(_ signal: Signal) -> TriggerSignalDecision<Value, Value> {
        switch phase {
        case .running:
            guard let value = latest else { return .keep(replaced: nil) }
            latest = nil
            return .deliver(value)
        case .upstreamFinished:
            return .decide
        case .terminated:
            return .keep(replaced: nil)
        }
    }

    @inlinable
    mutating func triggerSent(_ signal: Signal) -> TriggerEffects<Self> {
        tick(samplerFinished: false)
    }

    /// The sampler's finish counts as a last tick; its failure ends the sample at once.
    @inlinable
    mutating func triggerCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard case .failure = completion else { return tick(samplerFinished: true) }
        guard phase != .terminated else { return TriggerEffects() }
        return terminate(TriggerEffects(cancelUpstream: upstream.end(), released: sampler), completion)
    }

    @inlinable
    mutating func cancelled() -> TriggerEffects<Self> {
        guard phase != .terminated else { return TriggerEffects() }
        phase = .terminated
        defer { (latest, sampler) = (nil, nil) }
        return TriggerEffects(cancelUpstream: upstream.end(), cancelTrigger: sampler, releasedValue: latest)
    }

    /// A tick takes the latest value, and ends the sample if the upstream or the sampler has finished (cancelling
    /// the source that has not).
    @inlinable
    mutating func tick(samplerFinished: Bool) -> TriggerEffects<Self> {
        guard phase != .terminated else { return TriggerEffects() }
        defer { latest = nil }
        guard phase == .upstreamFinished || samplerFinished else { return TriggerEffects(value: latest) }
        phase = .terminated
        defer { sampler = nil }
        return TriggerEffects(
            cancelUpstream: upstream.end(), cancelTrigger: samplerFinished ? nil : sampler,
            released: samplerFinished ? sampler : nil, value: latest, completion: .finished, endsDownstream: true)
    }

    /// Ends the sample with a failure: values still waiting for demand are dropped.
    @inlinable
    mutating func terminate(
        _ effects: TriggerEffects<Self>, _ failure: Subscribers.Completion<Failure>
    ) -> TriggerEffects<Self> {
        phase = .terminated
        upstream = .ended
        sampler = nil
        var effects = effects
        effects.releasedValue = latest
        latest = nil
        effects.completion = failure
        effects.order = .dropWaitingValues
        effects.endsDownstream = true
        return effects
    }
}
