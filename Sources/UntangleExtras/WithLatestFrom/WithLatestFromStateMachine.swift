import Untangle

/// The pure state machine of a withLatestFrom: the two subscriptions, the other publisher's latest value, and the
/// demand asked before the upstream's subscription arrived. It never calls out.
///
/// **Demand:** the downstream's demand goes to the upstream (demand asked before the upstream subscribed is kept
/// and requested when it does); the other publisher is asked for `.unlimited` because only its latest value counts.
/// **Thread safety:** none: always mutated under the operator's lock.
struct WithLatestFromStateMachine<Latest> {
    private(set) var upstream: Subscription?
    private var other: Subscription?
    private var pendingDemand = Subscribers.Demand.none
    private(set) var latest: Latest?
    private(set) var isTerminated = false

    /// The upstream's subscription arrived: returns the demand to request (nil: cancel it instead).
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, upstream == nil else { return nil }
        upstream = subscription
        defer { pendingDemand = .none }
        return pendingDemand
    }

    /// The other publisher's subscription arrived: false if it must be cancelled instead.
    mutating func otherSubscribed(_ subscription: Subscription) -> Bool {
        guard !isTerminated, other == nil else { return false }
        other = subscription
        return true
    }

    /// The downstream asked for more: returns the upstream subscription to forward it to (nil: kept for later, or
    /// the operator has ended).
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        guard !isTerminated else { return nil }
        guard let upstream else {
            pendingDemand += demand
            return nil
        }
        return upstream
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
        defer { other = nil }
        return other
    }

    /// A completion or the downstream's cancel: ends everything and returns what to cancel (nil if it had already
    /// ended) and the latest value to release after unlocking. A source that has just completed is not cancelled.
    mutating func terminate(upstreamCompleted: Bool = false, otherFailed: Bool = false)
        -> (cancel: [Subscription], released: Latest?)?
    {
        guard !isTerminated else { return nil }
        isTerminated = true
        var toCancel: [Subscription] = []
        if !upstreamCompleted, let upstream { toCancel.append(upstream) }
        if !otherFailed, let other { toCancel.append(other) }
        upstream = nil
        other = nil
        defer { latest = nil }
        return (toCancel, latest)
    }
}
