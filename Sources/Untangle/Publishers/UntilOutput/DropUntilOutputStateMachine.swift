/// The pure state machine of `drop(untilOutputFrom:)`: the upstream and trigger subscriptions, the demand the
/// downstream has requested, whether the trigger has fired, and whose turn it is to call the downstream. It never
/// calls out: every method returns what the caller does after unlocking.
///
/// It keeps Apple's rules, which treat the two sources independently: a value from the trigger (at any time, even
/// after its completion) lets the upstream's values through; the trigger's completion before that publishes the
/// completion and cancels the upstream, but does not end the operator (an upstream subscribing later is still
/// accepted and asked for the demand requested so far, and a later trigger value still opens the gate); the
/// upstream's completion is published once; the trigger is never cancelled when it fires, only released.
///
/// It keeps the downstream for as long as Combine could still deliver to it (some signals follow a completion):
/// until the upstream has completed and the trigger has fired or completed, or until the downstream cancels.
/// (Combine keeps it for as long as the subscription lives.)
///
/// **Demand:** every downstream request is added to `requested` and forwarded to the upstream (or when it
/// subscribes). A value dropped before the trigger fires uses up one unit of it: a dropped value beyond it breaks
/// the upstream's contract and stops the program, as in Combine. The trigger is asked for `.max(1)`.
/// **Thread safety:** none: always mutated under the operator's lock.
struct DropUntilOutputStateMachine<Downstream: Subscriber> {
    typealias Failure = Downstream.Failure

    private var downstream: Downstream?
    private var upstream: Subscription?
    private var trigger: Subscription?
    private var requested = Subscribers.Demand.none
    private var triggered = false
    /// Set by the upstream's completion and by the downstream's cancel (Combine's own flag): values are dropped,
    /// a new upstream subscription is cancelled, the upstream's completion is ignored.
    private var closed = false
    /// Set by the downstream's cancel only: a late trigger subscription is cancelled instead of asked.
    private var downstreamCancelled = false
    /// The trigger completed before firing (its completion was published).
    private var triggerCompletedFirst = false
    private var turn = DownstreamTurn<Failure>()

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream's subscription arrived: the demand to request from it (`.none`: nothing yet), or nil to cancel
    /// it (a second subscription, or after the end).
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard upstream == nil, !closed else { return nil }
        upstream = subscription
        return requested
    }

    /// The trigger's subscription arrived: true to request `.max(1)` from it, false to cancel it.
    mutating func triggerSubscribed(_ subscription: Subscription) -> Bool {
        guard trigger == nil, !downstreamCancelled else { return false }
        trigger = subscription
        return true
    }

    /// The downstream asked for more: the subscription to forward it to (nil: kept until the upstream subscribes).
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        requested += demand
        return upstream
    }

    /// An upstream value arrived: the downstream to deliver it to (the caller took the turn and calls `leave()`
    /// after), or nil to drop it.
    mutating func valueReceived(on thread: ThreadID) -> Downstream? {
        guard triggered, !closed else {
            precondition(requested > .none, "drop(untilOutputFrom:) received a value it did not request")
            requested -= 1
            return nil
        }
        // Another thread calling the downstream now can only be delivering a completion; the value is dropped.
        guard let downstream, turn.enter(thread) else { return nil }
        return downstream
    }

    /// The trigger sent a value: the gate opens. Returns its subscription, to release after unlocking.
    mutating func triggerFired() -> Subscription? {
        triggered = true
        defer { trigger = nil }
        return trigger
    }

    /// The upstream completed: the downstream if the caller delivers the completion now (and calls `leave()`
    /// after); nil if it is ignored or was queued for the thread calling the downstream.
    mutating func upstreamCompleted(
        _ completion: Subscribers.Completion<Failure>, on thread: ThreadID
    ) -> Downstream? {
        guard !closed, let downstream else { return nil }
        closed = true
        return turn.enter(thread, completion: completion) ? downstream : nil
    }

    /// The trigger completed. After it fired this only releases its subscription (`released`). Before, the
    /// completion is published: `deliver` is the downstream if the caller delivers it now (and calls `leave()`
    /// after), and `cancel` is the upstream subscription to cancel.
    mutating func triggerCompleted(
        _ completion: Subscribers.Completion<Failure>, on thread: ThreadID
    ) -> (cancel: Subscription?, deliver: Downstream?, released: Subscription?) {
        guard !triggered else {
            defer { trigger = nil }
            return (nil, nil, trigger)
        }
        guard let downstream else { return (nil, nil, nil) }
        triggerCompletedFirst = true
        defer { upstream = nil }
        return (upstream, turn.enter(thread, completion: completion) ? downstream : nil, nil)
    }

    /// What the caller does when its callout to the downstream returned.
    enum LeaveAction {
        /// Deliver this queued completion (the turn stays with the caller), then call `leave()` again.
        case deliver(Downstream, Subscribers.Completion<Failure>)
        /// Done; release this downstream (nothing can reach it any more) after unlocking.
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
        guard turn.isIdle, closed, triggered || triggerCompletedFirst else { return .done(released: nil) }
        defer { downstream = nil }
        return .done(released: downstream)
    }

    /// The downstream cancelled: the upstream and trigger subscriptions to cancel, in that order, and the
    /// downstream, released after unlocking.
    mutating func cancelled() -> (upstream: Subscription?, trigger: Subscription?, released: Downstream?) {
        closed = true
        downstreamCancelled = true
        defer {
            upstream = nil
            trigger = nil
            downstream = nil
        }
        return (upstream, trigger, downstream)
    }
}
