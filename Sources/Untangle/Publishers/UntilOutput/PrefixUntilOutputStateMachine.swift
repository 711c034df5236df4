/// The pure state machine of `prefix(untilOutputFrom:)`: the upstream and trigger subscriptions and whose turn it is
/// to call the downstream. It never calls out: every method returns what the caller does after unlocking.
///
/// As in Combine, the downstream gets its subscription when the upstream's arrives; the trigger's first value
/// cancels the upstream and finishes the downstream (even before the upstream subscribed: then the downstream sees
/// only the completion, and the upstream is cancelled on arrival); the trigger's completion only stops listening
/// to it; the upstream's completion cancels the trigger. A trigger firing while another thread is calling the
/// downstream queues its `.finished` for that thread (see ``DownstreamTurn``). The downstream is released once its
/// completion has been delivered, or on cancel (Combine keeps it for as long as the subscription lives).
///
/// One departure from Combine: when the trigger fires before the upstream has subscribed, Combine sends the
/// downstream `.finished` without any subscription; here the downstream first receives this subscription (already
/// finished), so that every subscriber sees its subscription first.
///
/// **Demand:** downstream requests pass straight to the upstream once it has subscribed (earlier ones are
/// ignored, as in Combine); the trigger is asked for `.max(1)`.
/// **Thread safety:** none: always mutated under the operator's lock.
struct PrefixUntilOutputStateMachine<Downstream: Subscriber> {
    typealias Failure = Downstream.Failure

    // Each source's subscription: awaited, live, or ended (a later subscription is cancelled).
    private var upstream = UpstreamSlot.awaiting
    private var trigger = UpstreamSlot.awaiting
    private var turn = DownstreamTurn<Failure>()
    private var downstream: Downstream?

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream's subscription arrived: the downstream to pass the subscription to (the caller took the turn
    /// and calls `leave()` after), or nil to cancel it.
    mutating func upstreamSubscribed(_ subscription: Subscription, on thread: ThreadID) -> Downstream? {
        guard case .awaiting = upstream, let downstream else { return nil }
        upstream = .subscribed(subscription)
        // Nothing else can be calling the downstream yet: before the upstream subscribed, only the trigger's value
        // does, and it ends the upstream's slot, so this subscription would have been refused.
        let entered = turn.enter(thread)
        assert(entered, "prefix(untilOutputFrom:) passing on its subscription during another callout")
        return downstream
    }

    /// The trigger's subscription arrived: true to request `.max(1)` from it, false to cancel it.
    mutating func triggerSubscribed(_ subscription: Subscription) -> Bool {
        guard case .awaiting = trigger else { return false }
        trigger = .subscribed(subscription)
        return true
    }

    /// The downstream asked for more: the upstream subscription to forward it to, if live.
    func request() -> Subscription? {
        upstream.subscription
    }

    /// An upstream value arrived: the downstream to deliver it to (the caller took the turn and calls `leave()`
    /// after), or nil to drop it.
    mutating func valueReceived(on thread: ThreadID) -> Downstream? {
        guard case .subscribed = upstream, let downstream, turn.enter(thread) else { return nil }
        return downstream
    }

    /// The upstream completed: the trigger to cancel, whether to deliver the completion now (the caller took the
    /// turn and calls `leave()` after) and the upstream subscription, released after unlocking.
    mutating func upstreamCompleted(
        _ completion: Subscribers.Completion<Failure>, on thread: ThreadID
    ) -> (cancel: Subscription?, deliver: Downstream?, released: Subscription?) {
        let live = upstream.subscription
        let triggerSubscription = trigger.subscription
        upstream = .ended
        trigger = .ended
        let deliver = live != nil && turn.enter(thread, completion: completion)
        return (triggerSubscription, deliver ? downstream : nil, live)
    }

    /// The trigger sent a value: the upstream to cancel, whether to deliver `.finished` now (the caller took the
    /// turn and calls `leave()` after) and the trigger's subscription, released after unlocking. Nil: ignored.
    mutating func triggerFired(
        on thread: ThreadID
    ) -> (cancel: Subscription?, deliver: Downstream?, subscribeFirst: Bool, released: Subscription?)? {
        guard case .subscribed(let triggerSubscription) = trigger else { return nil }
        var subscribeFirst = false
        if case .awaiting = upstream {
            subscribeFirst = true
        }
        let upstreamSubscription = upstream.subscription
        upstream = .ended
        trigger = .ended
        let deliver = turn.enter(thread, completion: .finished)
        return (upstreamSubscription, deliver ? downstream : nil, subscribeFirst, triggerSubscription)
    }

    /// The trigger completed: it is no longer listened to. Returns its subscription, released after unlocking.
    mutating func triggerCompleted() -> Subscription? {
        defer { trigger = .ended }
        return trigger.subscription
    }

    /// What the caller does when its callout to the downstream returned.
    enum LeaveAction {
        /// Deliver this queued completion (the turn stays with the caller), then call `leave()` again.
        case deliver(Downstream, Subscribers.Completion<Failure>)
        /// Done; release this downstream (its last signal was delivered) after unlocking.
        case done(released: Downstream?)
    }

    /// A callout to the downstream returned.
    mutating func leave() -> LeaveAction {
        if let completion = turn.leave() {
            if let downstream {
                return .deliver(downstream, completion)
            }
            // Cancelled meanwhile: the queued completion is dropped with the downstream.
            while turn.leave() != nil {}
        }
        guard turn.isIdle, case .ended = upstream else { return .done(released: nil) }
        defer { downstream = nil }
        return .done(released: downstream)
    }

    /// The downstream cancelled: the upstream and trigger subscriptions to cancel, in that order, and the
    /// downstream, released after unlocking.
    mutating func cancelled() -> (upstream: Subscription?, trigger: Subscription?, released: Downstream?) {
        defer {
            upstream = .ended
            trigger = .ended
            downstream = nil
        }
        return (upstream.subscription, trigger.subscription, downstream)
    }
}
