/// The pure state machine of a ``MulticastInner`` (what a multicast subscribes to its subject for each subscriber):
/// its phase, with the downstream and the subject's subscription it holds. It never calls out: the inner calls the
/// downstream and the subject's subscription after unlocking.
///
/// **Thread safety:** none: always mutated under the inner's lock.
struct MulticastInnerStateMachine<Downstream> {
    enum Phase {
        case awaitingSubscription(Downstream)
        case subscribed(Downstream, Subscription)
        /// Completed or cancelled: everything is ignored (a late subscription is cancelled).
        case terminal
    }

    private(set) var phase: Phase

    init(downstream: Downstream) {
        phase = .awaitingSubscription(downstream)
    }

    /// The subject's subscription arrived: the downstream to hand the inner to, or nil (cancel it: a second one).
    mutating func receiveSubscription(_ subscription: Subscription) -> Downstream? {
        guard case .awaitingSubscription(let downstream) = phase else { return nil }
        phase = .subscribed(downstream, subscription)
        return downstream
    }

    /// The downstream and the subject's subscription, while subscribed.
    var live: (Downstream, Subscription)? {
        guard case .subscribed(let downstream, let subscription) = phase else { return nil }
        return (downstream, subscription)
    }

    /// The subject completed: the downstream to pass it to (and the subscription, both released after unlocking),
    /// nil if not subscribed.
    mutating func receiveCompletion() -> (Downstream, Subscription)? {
        guard case .subscribed(let downstream, let subscription) = phase else { return nil }
        phase = .terminal
        return (downstream, subscription)
    }

    /// The downstream cancelled: what was held (the subscription to cancel, the downstream to release after
    /// unlocking), nil if not subscribed.
    mutating func cancel() -> (Downstream, Subscription)? {
        guard case .subscribed(let downstream, let subscription) = phase else { return nil }
        phase = .terminal
        return (downstream, subscription)
    }
}
