/// The pure state machine of `subscribe(on:)`: the upstream subscription (which arrives on the scheduler, some time
/// after `subscribe`), and whether the downstream cancelled. It never calls out.
///
/// **Demand:** not tracked: every request is forwarded (on the scheduler) while the upstream is live.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct SubscribeOnStateMachine {
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case ended
    }

    private(set) var upstream = Upstream.awaiting

    /// The upstream's subscription arrived: false means it must be cancelled (a second one, or the downstream
    /// already cancelled).
    mutating func receiveSubscription(_ subscription: Subscription) -> Bool {
        guard case .awaiting = upstream else { return false }
        upstream = .subscribed(subscription)
        return true
    }

    /// The subscription a scheduled request goes to, if the upstream is still live when the request runs.
    func subscriptionForRequest() -> Subscription? {
        guard case .subscribed(let subscription) = upstream else { return nil }
        return subscription
    }

    /// The upstream completed: returns the state to release outside the lock.
    mutating func receiveCompletion() -> Upstream {
        defer { upstream = .ended }
        return upstream
    }

    /// The downstream cancelled: returns the subscription to cancel (on the scheduler), if there is one. A cancel
    /// before the subscription arrived makes the late subscription be cancelled when it arrives.
    mutating func cancel() -> Subscription? {
        defer { upstream = .ended }
        guard case .subscribed(let subscription) = upstream else { return nil }
        return subscription
    }
}
