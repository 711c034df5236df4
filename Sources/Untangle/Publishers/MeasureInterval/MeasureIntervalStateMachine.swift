/// The pure state machine of `measureInterval(using:)`: its phase, with the upstream subscription and the downstream
/// it holds. It never calls out: the subscription reads the clock and calls the downstream after unlocking. (The
/// previous instant is not here: only the serialized upstream signal path touches it.)
///
/// **Thread safety:** none: always mutated under the subscription's lock.
struct MeasureIntervalStateMachine<Downstream> {
    enum Phase {
        case awaiting(Downstream)
        case subscribed(Subscription, Downstream)
        /// Cancelled before the upstream's subscription arrived: as in Combine, the late subscription is ignored.
        case cancelledEarly
        /// Cancelled or completed: another subscription is cancelled.
        case ended
    }

    enum SubscriptionAction {
        /// Hand the downstream this operator's subscription.
        case deliver(Downstream)
        /// Cancel the unwanted subscription.
        case cancel
        /// Neither pass it on nor cancel it.
        case ignore
    }

    private(set) var phase: Phase

    init(downstream: Downstream) {
        phase = .awaiting(downstream)
    }

    mutating func receiveSubscription(_ subscription: Subscription) -> SubscriptionAction {
        switch phase {
        case .awaiting(let downstream):
            phase = .subscribed(subscription, downstream)
            return .deliver(downstream)
        case .cancelledEarly:
            return .ignore
        case .subscribed, .ended:
            return .cancel
        }
    }

    /// The upstream subscription and the downstream, while subscribed (a value is measured and delivered).
    var live: (Subscription, Downstream)? {
        guard case .subscribed(let subscription, let downstream) = phase else { return nil }
        return (subscription, downstream)
    }

    /// The upstream completed: the downstream to pass the completion to (and release), nil if not subscribed.
    mutating func receiveCompletion() -> Downstream? {
        guard case .subscribed(_, let downstream) = phase else { return nil }
        phase = .ended
        return downstream
    }

    /// The downstream cancelled: the subscription to cancel (nil before it arrived) and the downstream to release
    /// after unlocking; nil once cancelled or ended.
    mutating func cancel() -> (upstream: Subscription?, released: Downstream)? {
        switch phase {
        case .awaiting(let downstream):
            phase = .cancelledEarly
            return (nil, downstream)
        case .subscribed(let subscription, let downstream):
            phase = .ended
            return (subscription, downstream)
        case .cancelledEarly, .ended:
            return nil
        }
    }
}
