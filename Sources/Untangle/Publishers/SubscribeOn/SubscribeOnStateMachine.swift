/// The pure state machine of `subscribe(on:)`. It never calls out: every event returns what to do, and the
/// subscription does it after unlocking.
///
/// The upstream's subscription arrives on the scheduler, some time after `subscribe`. While the subscriber is inside
/// `receive(subscription:)` (the *subscribing* phase), a value or completion from another thread (the upstream may
/// start sending on the thread of a request that ran on a concurrent scheduler) is queued and delivered by the
/// subscribing thread once the callout returns, so the subscriber sees one signal at a time; one from the subscribing
/// thread itself (a synchronous upstream answering a request made on an immediate scheduler) is delivered nested, as
/// in Combine.
///
/// **Demand:** not tracked: every request is forwarded (on the scheduler) while the upstream is live.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct SubscribeOnStateMachine<Downstream: Subscriber> {
    enum Signal {
        case value(Downstream.Input)
        case completion(Subscribers.Completion<Downstream.Failure>)
    }

    enum Phase {
        /// Waiting for the upstream's subscription.
        case awaiting(Downstream)
        /// The subscriber is inside `receive(subscription:)` (or the subscribing thread is delivering what queued
        /// meanwhile) on `thread`.
        case subscribing(Subscription, Downstream, thread: ThreadID, queued: [Signal])
        case subscribed(Subscription, Downstream)
        /// Cancelled before the upstream's subscription arrived: as in Combine, the late subscription is ignored
        /// (neither passed on nor cancelled).
        case cancelledEarly
        /// Cancelled after the subscription arrived, or completed: another subscription is cancelled.
        case ended
    }

    private(set) var phase: Phase

    init(downstream: Downstream) {
        phase = .awaiting(downstream)
    }

    enum SubscriptionAction {
        case deliver(Downstream)
        case cancel
        case ignore
    }

    mutating func receiveSubscription(_ subscription: Subscription, on thread: ThreadID) -> SubscriptionAction {
        switch phase {
        case .awaiting(let downstream):
            phase = .subscribing(subscription, downstream, thread: thread, queued: [])
            return .deliver(downstream)
        case .cancelledEarly:
            return .ignore
        case .subscribing, .subscribed, .ended:
            return .cancel
        }
    }

    /// The subscription callout (or a batch of queued signals) returned: the next batch to deliver, if any.
    mutating func subscriptionDelivered() -> ([Signal], Downstream)? {
        let subscription: Subscription
        let downstream: Downstream
        let thread: ThreadID
        let queued: [Signal]
        switch phase {
        case .subscribing(let current, let receiving, let subscribing, let waiting):
            (subscription, downstream, thread, queued) = (current, receiving, subscribing, waiting)
        case .ended:
            // Cancelled, or completed from the subscribing thread, during the callout.
            return nil
        case .awaiting, .cancelledEarly, .subscribed:
            impossibleEvent("SubscribeOnStateMachine: subscriptionDelivered outside the subscription callout")
        }
        guard !queued.isEmpty else {
            phase = .subscribed(subscription, downstream)
            return nil
        }
        if case .completion = queued.last {
            phase = .ended
        } else {
            phase = .subscribing(subscription, downstream, thread: thread, queued: [])
        }
        return (queued, downstream)
    }

    /// A value arrived: the downstream to deliver it to now, or nil (queued, or ignored).
    mutating func receiveValue(_ value: Downstream.Input, on thread: ThreadID) -> Downstream? {
        switch phase {
        case .subscribed(_, let downstream):
            return downstream
        case .subscribing(let subscription, let downstream, let owner, var queued):
            if owner == thread && queued.isEmpty { return downstream }
            if case .completion = queued.last { return nil }
            queued.append(.value(value))
            phase = .subscribing(subscription, downstream, thread: owner, queued: queued)
            return nil
        case .awaiting, .cancelledEarly, .ended:
            return nil
        }
    }

    /// The completion arrived: the downstream to deliver it to now (released afterwards), or nil.
    mutating func receiveCompletion(
        _ completion: Subscribers.Completion<Downstream.Failure>, on thread: ThreadID
    ) -> Downstream? {
        switch phase {
        case .subscribed(_, let downstream):
            phase = .ended
            return downstream
        case .subscribing(let subscription, let downstream, let owner, var queued):
            if owner == thread && queued.isEmpty {
                phase = .ended
                return downstream
            }
            if case .completion = queued.last { return nil }
            queued.append(.completion(completion))
            phase = .subscribing(subscription, downstream, thread: owner, queued: queued)
            return nil
        case .awaiting, .cancelledEarly, .ended:
            return nil
        }
    }

    /// The upstream subscription a request goes to (on the scheduler), while the upstream is live.
    func subscriptionForRequest() -> Subscription? {
        switch phase {
        case .subscribing(let subscription, _, _, _), .subscribed(let subscription, _):
            return subscription
        case .awaiting, .cancelledEarly, .ended:
            return nil
        }
    }

    /// The downstream cancelled: returns the subscription to cancel (on the scheduler), if any, and what to release
    /// after unlocking. Later calls return nothing.
    mutating func cancel() -> (Subscription?, Phase) {
        let previous = phase
        switch phase {
        case .awaiting:
            phase = .cancelledEarly
            return (nil, previous)
        case .subscribing(let subscription, _, _, _), .subscribed(let subscription, _):
            phase = .ended
            return (subscription, previous)
        case .cancelledEarly, .ended:
            return (nil, .ended)
        }
    }
}
