import UntangleSync

/// The calls zip and combineLatest make to their upstreams once their state machine has decided, after unlocking.
///
/// ```swift
/// let demand = state.withCriticalSection { $0.subscribed(subscription, at: index) }
/// CombiningUpstreams.admit(subscription, demand: demand, operator: "zip")
/// ```
///
/// **Demand:** passes on exactly the demand the state machine decided.
/// **Thread safety:** call with no lock held: every method calls out to upstreams.
@usableFromInline
enum CombiningUpstreams {
    /// An upstream's subscription arrived and the state machine decided: cancel it (`demand` nil: the operator ended
    /// or already has this upstream's subscription), or request `demand` from it (nothing for `.none`).
    @inlinable
    static func admit(_ subscription: Subscription, demand: Subscribers.Demand?, operator name: StaticString) {
        guard let demand else {
            CalloutCheck.assertNoLockHeld("\(name) cancelling a late upstream")
            subscription.cancel()
            return
        }
        if demand > .none {
            CalloutCheck.assertNoLockHeld("\(name) requesting from a new upstream")
            subscription.request(demand)
        }
    }

    /// Forwards a downstream request to the upstreams the state machine returned.
    @inlinable
    static func request(_ demand: Subscribers.Demand, from subscriptions: [Subscription], operator name: StaticString) {
        CalloutCheck.assertNoLockHeld("\(name) requesting from its upstreams")
        for subscription in subscriptions {
            subscription.request(demand)
        }
    }

    /// Cancels the upstreams the state machine returned (the operator ended).
    @inlinable
    static func cancel(_ subscriptions: [Subscription], operator name: StaticString) {
        CalloutCheck.assertNoLockHeld("\(name) cancelling upstreams")
        for subscription in subscriptions {
            subscription.cancel()
        }
    }
}
