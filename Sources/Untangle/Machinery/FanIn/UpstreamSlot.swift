/// Where one upstream of an operator stands: not subscribed yet, subscribed (holding its subscription), or ended
/// (finished, failed, cancelled, or never to be subscribed). Fan-in state machines keep one slot per upstream instead
/// of an optional subscription plus flags, so "a second subscription after the first one ended" is told apart from
/// "the first subscription".
///
/// ```swift
/// var upstream = UpstreamSlot.awaiting
/// guard upstream.accept(subscription) else { return .cancel }   // a second subscription is refused
/// let toCancel = upstream.end()                                   // the subscription to cancel after unlocking
/// ```
///
/// **Demand:** none: the slot only holds the subscription.
/// **Thread safety:** none: a value type kept inside a state machine that is mutated under its operator's lock.
@usableFromInline
package enum UpstreamSlot {
    /// The upstream has not sent its subscription yet.
    case awaiting
    /// The upstream's subscription, to forward requests and cancel to.
    case subscribed(Subscription)
    /// The upstream completed, or the operator ended: any later subscription is to be cancelled.
    case ended

    /// Takes `subscription` if the slot was awaiting one; false if it must be cancelled instead.
    @inlinable
    package mutating func accept(_ subscription: Subscription) -> Bool {
        guard case .awaiting = self else { return false }
        self = .subscribed(subscription)
        return true
    }

    /// The subscription held, if subscribed.
    @inlinable
    package var subscription: Subscription? {
        if case .subscribed(let subscription) = self { return subscription }
        return nil
    }

    /// Whether the slot has ended.
    @inlinable
    package var isEnded: Bool {
        if case .ended = self { return true }
        return false
    }

    /// Ends the slot; returns the subscription it held (to cancel or release after unlocking), if any.
    @inlinable
    @discardableResult
    package mutating func end() -> Subscription? {
        defer { self = .ended }
        return subscription
    }
}
