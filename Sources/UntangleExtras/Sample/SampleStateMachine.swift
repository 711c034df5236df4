import Untangle

/// The pure state machine of a sample: its phase (running with both sources' subscriptions, or terminated), and
/// the upstream's latest value not yet sampled. It never calls out.
///
/// **Demand:** both the upstream and the sampler are asked for `.unlimited`; downstream demand is applied by the
/// operator's emitter (a sampled value beyond demand waits and is replaced by a newer one).
/// **Thread safety:** none: always mutated under the operator's lock.
struct SampleStateMachine<Value> {
    /// The sample's phase.
    enum Phase {
        /// Running: the upstream's side (ended: it finished, a later subscription is refused, and the next tick
        /// delivers the latest value and ends the sample), and the sampler's subscription once it arrived.
        case running(upstream: UpstreamSlot, sampler: Subscription?)
        /// Ended (by a tick after a finish, a failure, or the downstream's cancel): every subscription is refused,
        /// every value released.
        case terminated
    }

    private var phase = Phase.running(upstream: .awaiting, sampler: nil)
    private var latest: Value?

    /// Whether the sample has ended.
    var isTerminated: Bool {
        if case .terminated = phase { return true }
        return false
    }

    /// A subscription arrived: false if it must be cancelled instead.
    mutating func subscribed(_ subscription: Subscription, isSampler: Bool) -> Bool {
        guard case .running(let upstream, let sampler) = phase else { return false }
        if isSampler {
            guard sampler == nil else { return false }
            phase = .running(upstream: upstream, sampler: subscription)
        } else {
            guard case .awaiting = upstream else { return false }
            phase = .running(upstream: .subscribed(subscription), sampler: sampler)
        }
        return true
    }

    /// The upstream sent a value: returns the replaced one, to be released after unlocking.
    mutating func upstreamSent(_ value: Value) -> Value? {
        guard case .running = phase else { return value }
        defer { latest = value }
        return latest
    }

    /// The upstream finished: the next tick ends the sample. Returns its subscription to release after unlocking.
    mutating func upstreamDidFinish() -> Subscription? {
        guard case .running(let upstream, let sampler) = phase else { return nil }
        phase = .running(upstream: .ended, sampler: sampler)
        return upstream.subscription
    }

    /// What a tick (a sampler value or its completion) does.
    struct Tick {
        var value: Value?
        /// Finish after the value; `cancel` are the subscriptions to cancel.
        var finish = false
        var cancel: [Subscription] = []
    }

    /// The sampler sent a value (or finished, `samplerFinished`): takes the latest value, and ends the sample if
    /// the upstream or the sampler has finished.
    mutating func tick(samplerFinished: Bool) -> Tick {
        guard case .running(let upstream, _) = phase else { return Tick() }
        var tick = Tick(value: latest)
        latest = nil
        if upstream.isEnded || samplerFinished {
            tick.finish = true
            tick.cancel = terminate(keepSampler: samplerFinished) ?? []
        }
        return tick
    }

    /// Ends the sample: returns what to cancel (nil if it had already ended). The source that has just completed
    /// is not cancelled.
    mutating func terminate(keepUpstream: Bool = false, keepSampler: Bool = false) -> [Subscription]? {
        guard case .running(let upstream, let sampler) = phase else { return nil }
        phase = .terminated
        var toCancel: [Subscription] = []
        if !keepUpstream, let upstream = upstream.subscription { toCancel.append(upstream) }
        if !keepSampler, let sampler { toCancel.append(sampler) }
        latest = nil
        return toCancel
    }
}
