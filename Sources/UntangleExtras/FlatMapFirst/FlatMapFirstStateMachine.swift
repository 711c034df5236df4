import Untangle

/// The pure state machine of a flatMapFirst: the upstream subscription, whether an inner publisher is active, its
/// subscription, and the downstream's outstanding demand. It never calls out.
///
/// **Demand:** the upstream is asked for `.unlimited` (values that arrive while an inner is active are ignored, so
/// asking for fewer would only delay the next inner). `demand` is what the downstream asked for minus the values
/// the inners have sent: a new inner is asked for all of it, later requests go to the current inner.
/// **Thread safety:** none: always mutated under the operator's lock.
struct FlatMapFirstStateMachine: FanInStateMachine {
    private var upstream = UpstreamSlot.awaiting
    /// The current inner's id (0: none yet).
    private var current = 0
    private var innerIsActive = false
    private var inner: Subscription?
    private var demand = Subscribers.Demand.none
    private(set) var isTerminated = false

    /// The upstream's subscription arrived: false if it must be cancelled instead.
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Bool {
        guard !isTerminated else { return false }
        return upstream.accept(subscription)
    }

    /// An upstream value arrived: returns the id of the inner to create for it, or nil to ignore it (an inner is
    /// active, or the operator has ended).
    mutating func upstreamSent() -> Int? {
        guard !isTerminated, !innerIsActive else { return nil }
        innerIsActive = true
        current += 1
        return current
    }

    /// Inner `id`'s subscription arrived: returns the demand to request (nil: cancel it instead).
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, id == current, innerIsActive, inner == nil else { return nil }
        inner = subscription
        return demand
    }

    /// Inner `id` sent a value: true if it is to be delivered (it uses up one unit of demand).
    mutating func innerSent(_ id: Int) -> Bool {
        guard !isTerminated, id == current else { return false }
        if demand != .unlimited, demand > .none {
            demand -= 1
        }
        return true
    }

    /// The downstream asked for more: returns the current inner's subscription to forward it to.
    mutating func request(_ more: Subscribers.Demand) -> [Subscription] {
        guard !isTerminated else { return [] }
        demand += more
        return inner.map { [$0] } ?? []
    }

    /// Inner `id` finished: `finish` if the upstream has finished too; `released` is its subscription, to be
    /// released after unlocking.
    mutating func innerFinished(_ id: Int) -> (finish: Bool, released: Subscription?) {
        guard !isTerminated, id == current, innerIsActive else { return (false, nil) }
        innerIsActive = false
        defer { inner = nil }
        if upstream.isEnded {
            isTerminated = true
            return (true, inner)
        }
        return (false, inner)
    }

    /// The upstream finished: true if no inner is active (the operator finishes now).
    mutating func upstreamFinished() -> Bool {
        guard !isTerminated else { return false }
        upstream.end()
        if !innerIsActive {
            isTerminated = true
            return true
        }
        return false
    }

    /// The downstream cancelled: ends everything and returns what to cancel (nil if it had already ended).
    mutating func terminate() -> [Subscription]? {
        end(failedInner: nil, upstreamFailed: false)
    }

    /// A failure or the downstream's cancel: ends everything and returns what to cancel (nil if it had already
    /// ended). A source that has just failed is not cancelled.
    mutating func end(failedInner: Int?, upstreamFailed: Bool) -> [Subscription]? {
        guard !isTerminated else { return nil }
        if let failedInner, failedInner != current { return nil }
        isTerminated = true
        var toCancel: [Subscription] = []
        if failedInner == nil, let inner { toCancel.append(inner) }
        if !upstreamFailed, let subscription = upstream.subscription { toCancel.append(subscription) }
        inner = nil
        upstream.end()
        return toCancel
    }
}
