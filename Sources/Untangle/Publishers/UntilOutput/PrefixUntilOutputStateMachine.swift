/// The pure state machine of `prefix(untilOutputFrom:)`: the upstream and trigger subscriptions, demand requested
/// before the upstream subscribed, and whether an upstream value is being delivered (the trigger's `.finished` must
/// not overlap it). It never calls out: every method returns what the caller does after unlocking.
///
/// **Demand:** downstream requests go straight to the upstream (held back until it subscribes); the trigger is asked
/// for `.max(1)` and cancelled after its first value.
/// **Thread safety:** none: always mutated under the operator's lock.
struct PrefixUntilOutputStateMachine<Downstream> {
    /// What the trigger's first value makes the caller do.
    enum TriggerAction {
        case ignore
        /// Cancel these, then deliver `.finished` to the downstream.
        case finishNow(Downstream, cancel: [Subscription])
        /// Cancel these; the thread delivering an upstream value delivers `.finished` when it returns.
        case cancelOnly([Subscription])
    }

    private enum Phase {
        case active
        /// The trigger fired while an upstream value was being delivered.
        case finishing
        case ended
    }

    private var phase = Phase.active
    private var downstream: Downstream?
    private var upstream: Subscription?
    private var upstreamArrived = false
    private var trigger: Subscription?
    private var triggerArrived = false
    private var pendingDemand = Subscribers.Demand.none
    private var delivering = false

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream's subscription arrived: the demand to request from it, or nil to cancel it.
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard case .active = phase, !upstreamArrived else { return nil }
        upstreamArrived = true
        upstream = subscription
        defer { pendingDemand = .none }
        return pendingDemand
    }

    /// The trigger's subscription arrived: true to request `.max(1)` from it, false to cancel it.
    mutating func triggerSubscribed(_ subscription: Subscription) -> Bool {
        guard case .active = phase, !triggerArrived else { return false }
        triggerArrived = true
        trigger = subscription
        return true
    }

    /// The downstream asked for more: the subscription to forward it to (nil: kept until the upstream subscribes,
    /// or dropped after the end).
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        guard case .active = phase else { return nil }
        guard let upstream else {
            pendingDemand += demand
            return nil
        }
        return upstream
    }

    /// An upstream value arrived: the downstream to deliver it to, or nil to drop it.
    mutating func willDeliverValue() -> Downstream? {
        guard case .active = phase, let downstream else { return nil }
        delivering = true
        return downstream
    }

    /// The delivery returned: the downstream to send `.finished` to if the trigger fired meanwhile.
    mutating func didDeliverValue() -> Downstream? {
        delivering = false
        guard case .finishing = phase else { return nil }
        phase = .ended
        defer { downstream = nil }
        return downstream
    }

    /// The trigger sent its first value.
    mutating func triggered() -> TriggerAction {
        guard case .active = phase else { return .ignore }
        let cancel = [upstream, trigger].compactMap { $0 }
        upstream = nil
        trigger = nil
        if delivering {
            phase = .finishing
            return .cancelOnly(cancel)
        }
        phase = .ended
        defer { downstream = nil }
        return downstream.map { .finishNow($0, cancel: cancel) } ?? .cancelOnly(cancel)
    }

    /// The trigger completed without a value (ignored, as in Apple's Combine): returns its subscription, to be
    /// released outside the lock.
    mutating func triggerCompleted() -> Subscription? {
        defer { trigger = nil }
        return trigger
    }

    /// The upstream completed: the downstream to pass the completion to and the trigger to cancel, or nil if ended.
    mutating func upstreamCompleted() -> (Downstream, cancel: Subscription?)? {
        guard case .active = phase, let downstream else { return nil }
        phase = .ended
        defer {
            self.downstream = nil
            upstream = nil
            trigger = nil
        }
        return (downstream, trigger)
    }

    /// The downstream cancelled: the subscriptions to cancel and the downstream to release outside the lock.
    mutating func cancelled() -> (cancel: [Subscription], released: Downstream?) {
        phase = .ended
        defer {
            upstream = nil
            trigger = nil
            downstream = nil
        }
        return ([upstream, trigger].compactMap { $0 }, downstream)
    }
}
