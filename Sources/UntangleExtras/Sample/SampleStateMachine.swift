import Untangle

/// The pure state machine of a sample: both subscriptions, the upstream's latest value not yet sampled, and
/// whether the upstream has finished. It never calls out.
///
/// **Demand:** both the upstream and the sampler are asked for `.unlimited`; downstream demand is applied by the
/// operator's emitter (a sampled value beyond demand waits and is replaced by a newer one).
/// **Thread safety:** none: always mutated under the operator's lock.
struct SampleStateMachine<Value> {
    private var upstream: Subscription?
    private var sampler: Subscription?
    private var latest: Value?
    private var upstreamFinished = false
    private(set) var isTerminated = false

    /// A subscription arrived: false if it must be cancelled instead.
    mutating func subscribed(_ subscription: Subscription, isSampler: Bool) -> Bool {
        guard !isTerminated else { return false }
        if isSampler {
            guard sampler == nil else { return false }
            sampler = subscription
        } else {
            guard upstream == nil else { return false }
            upstream = subscription
        }
        return true
    }

    /// The upstream sent a value: returns the replaced one, to be released after unlocking.
    mutating func upstreamSent(_ value: Value) -> Value? {
        guard !isTerminated else { return value }
        defer { latest = value }
        return latest
    }

    /// The upstream finished: the next tick ends the sample. Returns its subscription to release after unlocking.
    mutating func upstreamDidFinish() -> Subscription? {
        upstreamFinished = true
        defer { upstream = nil }
        return upstream
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
        guard !isTerminated else { return Tick() }
        var tick = Tick(value: latest)
        latest = nil
        if upstreamFinished || samplerFinished {
            tick.finish = true
            tick.cancel = terminate(keepSampler: samplerFinished) ?? []
        }
        return tick
    }

    /// Ends the sample: returns what to cancel (nil if it had already ended). The source that has just completed
    /// is not cancelled.
    mutating func terminate(keepUpstream: Bool = false, keepSampler: Bool = false) -> [Subscription]? {
        guard !isTerminated else { return nil }
        isTerminated = true
        var toCancel: [Subscription] = []
        if !keepUpstream, let upstream { toCancel.append(upstream) }
        if !keepSampler, let sampler { toCancel.append(sampler) }
        upstream = nil
        sampler = nil
        latest = nil
        return toCancel
    }
}
