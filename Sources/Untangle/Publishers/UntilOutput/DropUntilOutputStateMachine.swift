/// The pure state machine of `drop(untilOutputFrom:)`: the upstream and trigger subscriptions, demand requested
/// before the upstream subscribed, and whether the trigger has fired. It never calls out: every method returns what
/// the caller does after unlocking.
///
/// The downstream cannot see two signals at once without a delivery flag: upstream values reach it only after the
/// trigger fired, and from then on the trigger's signals are ignored; the only signal the trigger can deliver (its
/// completion before any value) ends the operator, after which upstream signals are ignored.
///
/// **Demand:** downstream requests go straight to the upstream (held back until it subscribes); values dropped
/// before the trigger fires use up the demand that allowed them, as in Apple's Combine. The trigger is asked for
/// `.max(1)` and cancelled after its first value.
/// **Thread safety:** none: always mutated under the operator's lock.
struct DropUntilOutputStateMachine<Downstream> {
    private var ended = false
    private var fired = false
    private var downstream: Downstream?
    private var upstream: Subscription?
    private var upstreamArrived = false
    private var trigger: Subscription?
    private var triggerArrived = false
    private var pendingDemand = Subscribers.Demand.none

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream's subscription arrived: the demand to request from it, or nil to cancel it.
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard !ended, !upstreamArrived else { return nil }
        upstreamArrived = true
        upstream = subscription
        defer { pendingDemand = .none }
        return pendingDemand
    }

    /// The trigger's subscription arrived: true to request `.max(1)` from it, false to cancel it.
    mutating func triggerSubscribed(_ subscription: Subscription) -> Bool {
        guard !ended, !fired, !triggerArrived else { return false }
        triggerArrived = true
        trigger = subscription
        return true
    }

    /// The downstream asked for more: the subscription to forward it to (nil: kept until the upstream subscribes,
    /// or dropped after the end).
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        guard !ended else { return nil }
        guard let upstream else {
            pendingDemand += demand
            return nil
        }
        return upstream
    }

    /// An upstream value arrived: the downstream to deliver it to, or nil to drop it.
    func valueReceived() -> Downstream? {
        guard !ended, fired else { return nil }
        return downstream
    }

    /// The trigger sent its first value: returns its subscription, to cancel (nil if ignored).
    mutating func triggered() -> Subscription? {
        guard !ended, !fired else { return nil }
        fired = true
        defer { trigger = nil }
        return trigger
    }

    /// The upstream completed: the downstream to pass it to and the trigger to cancel, or nil if ended.
    mutating func upstreamCompleted() -> (Downstream, cancel: Subscription?)? {
        guard !ended, let downstream else { return nil }
        ended = true
        defer {
            self.downstream = nil
            upstream = nil
            trigger = nil
        }
        return (downstream, trigger)
    }

    /// The trigger completed. Before its first value this ends the operator: returns the downstream to pass the
    /// completion to and the upstream to cancel. After its first value (or the end) it is ignored: nil.
    mutating func triggerCompleted() -> (Downstream, cancel: Subscription?)? {
        guard !ended, !fired, let downstream else { return nil }
        ended = true
        defer {
            self.downstream = nil
            upstream = nil
            trigger = nil
        }
        return (downstream, upstream)
    }

    /// The downstream cancelled: the subscriptions to cancel and the downstream to release outside the lock.
    mutating func cancelled() -> (cancel: [Subscription], released: Downstream?) {
        ended = true
        defer {
            upstream = nil
            trigger = nil
            downstream = nil
        }
        return ([upstream, trigger].compactMap { $0 }, downstream)
    }
}
