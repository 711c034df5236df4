import Untangle

/// The pure state machine of a flatMapFirst: its phase (no inner active, inner `id` active with its subscription, or
/// ended), the upstream's subscription, the last inner's id, and the downstream's outstanding demand. It never calls
/// out.
///
/// **Demand:** the upstream is asked for `.unlimited` (values that arrive while an inner is active are ignored, so
/// asking for fewer would only delay the next inner). `demand` is what the downstream asked for minus the values
/// the inners have sent: a new inner is asked for all of it, later requests go to the current inner.
/// **Thread safety:** none: always mutated under the operator's lock.
struct FlatMapFirstStateMachine: FanInStateMachine {
    /// Where the operator is.
    enum Phase {
        /// No inner is active: the next upstream value starts one.
        case idle
        /// Inner `id` is active; `inner` is where it stands (awaiting its subscription, or subscribed).
        case active(id: Int, inner: UpstreamSlot)
        /// Finished, failed or cancelled.
        case ended
    }

    static var decidesValues: Bool { true }

    private(set) var phase = Phase.idle
    private var upstream = UpstreamSlot.awaiting
    /// The last inner's id (0: none yet).
    private var lastID = 0
    private var demand = Subscribers.Demand.none

    /// Whether the operator has ended.
    var isEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// The upstream's subscription arrived: false if it must be cancelled instead.
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Bool {
        guard !isEnded else { return false }
        return upstream.accept(subscription)
    }

    /// An upstream value arrived: returns the id of the inner to create for it, or nil to ignore it (an inner is
    /// active, or the operator has ended).
    mutating func upstreamSent() -> Int? {
        guard case .idle = phase else { return nil }
        lastID += 1
        phase = .active(id: lastID, inner: .awaiting)
        return lastID
    }

    /// Inner `id`'s subscription arrived: returns the demand to request (nil: cancel it instead).
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        checkIssued(id, 1..<lastID + 1, "innerSubscribed")
        guard case .active(id, .awaiting) = phase else { return nil }
        phase = .active(id: id, inner: .subscribed(subscription))
        return demand
    }

    /// Inner `id` sent a value: delivered if it is the active inner (it uses up one unit of demand), else dropped.
    mutating func innerValue(_ id: Int) -> FanInValue {
        checkIssued(id, 1..<lastID + 1, "innerValue")
        guard case .active(id, _) = phase else { return .drop }
        if demand != .unlimited, demand > .none {
            demand -= 1
        }
        return .deliver
    }

    /// The downstream asked for more: returns the active inner's subscription to forward it to.
    mutating func request(_ more: Subscribers.Demand) -> [Subscription] {
        switch phase {
        case .ended:
            return []
        case .idle:
            demand += more
            return []
        case .active(_, let inner):
            demand += more
            return inner.subscription.map { [$0] } ?? []
        }
    }

    /// Inner `id` completed: a finish makes the operator idle (or finishes it, if the upstream has finished); a
    /// failure ends it, cancelling the upstream. A completion of an inner that is not the active one is ignored.
    mutating func innerCompleted<Failure>(
        _ id: Int, _ completion: Subscribers.Completion<Failure>
    ) -> FanInEffects<Failure> {
        checkIssued(id, 1..<lastID + 1, "innerCompleted")
        guard case .active(id, let inner) = phase else { return FanInEffects() }
        guard case .finished = completion else {
            return FanInEffects(ending: end(cancellingInner: false, cancellingUpstream: true), completion: completion)
        }
        guard upstream.isEnded else {
            phase = .idle
            return FanInEffects(released: inner.subscription)
        }
        phase = .ended
        return FanInEffects(released: inner.subscription, completion: .finished)
    }

    /// The upstream completed: a finish finishes the operator once no inner is active; a failure ends it, cancelling
    /// the active inner.
    mutating func upstreamCompleted<Failure>(_ completion: Subscribers.Completion<Failure>) -> FanInEffects<Failure> {
        guard !isEnded else { return FanInEffects() }
        guard case .finished = completion else {
            return FanInEffects(ending: end(cancellingInner: true, cancellingUpstream: false), completion: completion)
        }
        let released = upstream.end()
        guard case .idle = phase else { return FanInEffects(released: released) }
        phase = .ended
        return FanInEffects(released: released, completion: .finished)
    }

    /// The downstream cancelled: ends everything and returns what to cancel (nil if it had already ended).
    mutating func cancelled() -> FanInEnding? {
        guard !isEnded else { return nil }
        return end(cancellingInner: true, cancellingUpstream: true)
    }

    /// Ends the operator: returns the sources to cancel, the active inner first (a source that has just failed is
    /// not cancelled, only released).
    private mutating func end(cancellingInner: Bool, cancellingUpstream: Bool) -> FanInEnding {
        var inner: Subscription?
        if case .active(_, let slot) = phase {
            inner = slot.subscription
        }
        phase = .ended
        let upstreamSubscription = upstream.end()
        var toCancel: [Subscription] = []
        if cancellingInner, let inner { toCancel.append(inner) }
        if cancellingUpstream, let upstreamSubscription { toCancel.append(upstreamSubscription) }
        return FanInEnding(
            cancel: toCancel, released: (cancellingInner ? nil : inner, cancellingUpstream ? nil : upstreamSubscription)
        )
    }
}
