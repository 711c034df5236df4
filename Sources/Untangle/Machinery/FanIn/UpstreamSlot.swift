import UntangleSync

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

    /// Under the lock: takes `subscription` if the slot was awaiting one, and returns what to do with it after
    /// unlocking: request `demand` from it, or cancel it (the slot is subscribed already, or ended).
    ///
    /// ```swift
    /// let admission = state.withCriticalSection { $0.upstream.admit(subscription, requesting: .unlimited) }
    /// admission.perform(on: subscription, operator: "buffer")
    /// ```
    @inlinable
    package mutating func admit(
        _ subscription: Subscription, requesting demand: Subscribers.Demand
    ) -> UpstreamAdmission {
        accept(subscription) ? .admitted(requesting: demand) : .rejected
    }

    /// Ends the slot; returns the subscription it held (to cancel or release after unlocking), if any.
    @inlinable
    @discardableResult
    package mutating func end() -> Subscription? {
        defer { self = .ended }
        return subscription
    }
}

// Performance: a wrapped `Demand?`, so deciding and performing cost what the optional demand each operator returned
// before did (flatMap admits one inner per value).
/// What becomes of an upstream's subscription that has just arrived: decided under the operator's lock (by
/// ``UpstreamSlot/admit(_:requesting:)``, or by a state machine's own check), then carried out after unlocking by
/// ``perform(on:operator:)``: request the demand from an admitted subscription, cancel a rejected one (a second
/// subscription, or one arriving after the operator or this upstream ended).
///
/// ```swift
/// let admission = state.withCriticalSection { $0.subscribed(subscription, at: index) }
/// admission.perform(on: subscription, operator: "zip")
/// ```
///
/// **Demand:** an admitted subscription is asked for its demand at once (nothing for `.none`).
/// **Thread safety:** a value: decided under the lock, performed with no lock held.
@usableFromInline
package struct UpstreamAdmission {
    /// The demand to request from the admitted subscription; nil: rejected, cancel it.
    @usableFromInline package let demand: Subscribers.Demand?

    /// `demand`: admitted, to be asked for `demand`; nil: rejected.
    @inlinable
    package init(_ demand: Subscribers.Demand?) {
        self.demand = demand
    }

    /// The subscription was taken: request `demand` from it after unlocking (nothing for `.none`).
    @inlinable
    package static func admitted(requesting demand: Subscribers.Demand) -> UpstreamAdmission {
        UpstreamAdmission(demand)
    }

    /// The subscription was refused: cancel it after unlocking.
    @inlinable
    package static var rejected: UpstreamAdmission { UpstreamAdmission(nil) }

    /// Whether the subscription was taken.
    @inlinable
    package var isAdmitted: Bool { demand != nil }

    /// With no lock held: cancels a rejected `subscription`, or requests the demand from an admitted one.
    @inlinable
    package func perform(on subscription: Subscription, operator name: StaticString) {
        guard let demand else {
            CalloutCheck.assertNoLockHeld("\(name) cancelling an unwanted upstream subscription")
            subscription.cancel()
            return
        }
        if demand > .none {
            CalloutCheck.assertNoLockHeld("\(name) requesting from a new upstream")
            subscription.request(demand)
        }
    }
}

/// The calls an operator with several upstreams (fan-in, zip, combineLatest) makes to a set of them once its state
/// machine has decided, after unlocking: one demand requested from each, or each cancelled.
///
/// ```swift
/// let subscriptions = state.withCriticalSection { $0.request(demand) }
/// UpstreamCalls.request(demand, from: subscriptions, operator: "zip")
/// ```
///
/// **Demand:** passes on exactly the demand the state machine decided, to each subscription named.
/// **Thread safety:** call with no lock held: every method calls out to upstreams.
@usableFromInline
package enum UpstreamCalls {
    /// Requests `demand` from each of `subscriptions` (a downstream request the state machine forwards).
    @inlinable
    package static func request(
        _ demand: Subscribers.Demand, from subscriptions: [Subscription], operator name: StaticString
    ) {
        CalloutCheck.assertNoLockHeld("\(name) requesting from its upstreams")
        for subscription in subscriptions {
            subscription.request(demand)
        }
    }

    /// Requests `demand` from `subscription`, if there is one (demand routed to a single upstream).
    @inlinable
    package static func request(
        _ demand: Subscribers.Demand, from subscription: Subscription?, operator name: StaticString
    ) {
        guard let subscription else { return }
        CalloutCheck.assertNoLockHeld("\(name) requesting from an upstream")
        subscription.request(demand)
    }

    /// Cancels `subscription`, if there is one (a replaced or refused upstream).
    @inlinable
    package static func cancel(_ subscription: Subscription?, operator name: StaticString) {
        guard let subscription else { return }
        CalloutCheck.assertNoLockHeld("\(name) cancelling an upstream")
        subscription.cancel()
    }

    /// Cancels each of `subscriptions` (the operator ended).
    @inlinable
    package static func cancel(_ subscriptions: [Subscription], operator name: StaticString) {
        CalloutCheck.assertNoLockHeld("\(name) cancelling upstreams")
        for subscription in subscriptions {
            subscription.cancel()
        }
    }
}
