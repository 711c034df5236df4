import Untangle

/// The pure state machine of a withLatestFrom: the two subscriptions, the other publisher's latest value, and the
/// demand asked before the upstream's subscription arrived. It never calls out.
///
/// **Demand:** the downstream's demand goes to the upstream (demand asked before the upstream subscribed is kept
/// and requested when it does); the other publisher is asked for `.unlimited` because only its latest value counts.
/// **Thread safety:** none: always mutated under the operator's lock.
struct WithLatestFromStateMachine<Latest> {
    private var upstream = UpstreamSlot.awaiting
    private var other = UpstreamSlot.awaiting
    private var pendingDemand = Subscribers.Demand.none
    private(set) var latest: Latest?
    private(set) var isTerminated = false

    /// The upstream's subscription arrived: admitted with the demand asked so far, or rejected (ended, or a second
    /// subscription).
    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        let admission = upstream.admit(subscription, requesting: pendingDemand)
        if admission.isAdmitted { pendingDemand = .none }
        return admission
    }

    /// The other publisher's subscription arrived: admitted with `.unlimited`, or rejected (ended, or a second
    /// subscription).
    mutating func otherSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        other.admit(subscription, requesting: .unlimited)
    }

    /// The downstream asked for more: returns the upstream subscription to forward it to (nil: kept for later, or
    /// the operator has ended).
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        switch upstream {
        case .awaiting:
            pendingDemand += demand
            return nil
        case .subscribed(let subscription): return subscription
        case .ended: return nil
        }
    }

    /// The other publisher sent a value: returns the replaced one, to be released after unlocking.
    mutating func otherSent(_ value: Latest) -> Latest? {
        guard !isTerminated else { return value }
        defer { latest = value }
        return latest
    }

    /// The other publisher finished: its latest value stays; its subscription is returned to be released after
    /// unlocking.
    mutating func otherFinished() -> Subscription? {
        other.end()
    }

    /// A completion or the downstream's cancel: ends everything and returns what to cancel (nil if it had already
    /// ended) and the latest value to release after unlocking. A source that has just completed is not cancelled.
    mutating func terminate(upstreamCompleted: Bool = false, otherFailed: Bool = false)
        -> (cancel: [Subscription], released: Latest?)?
    {
        guard !isTerminated else { return nil }
        isTerminated = true
        var toCancel: [Subscription] = []
        if let upstream = upstream.end(), !upstreamCompleted { toCancel.append(upstream) }
        if let other = other.end(), !otherFailed { toCancel.append(other) }
        defer { latest = nil }
        return (toCancel, latest)
    }
}
