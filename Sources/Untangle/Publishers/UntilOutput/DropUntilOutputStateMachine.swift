/// The pure state machine of `drop(untilOutputFrom:)`: the upstream and trigger subscriptions, the demand the
/// downstream has requested, the upstream's phase, the trigger's gate, and whose turn it is to call the downstream. It never
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

    /// The upstream's side of the operator, and the downstream's cancel. Combine's own "closed" flag (values
    /// dropped, a new upstream subscription cancelled, the upstream's completion ignored) is: not `.open`.
    enum UpstreamPhase {
        /// Before the upstream's completion: its subscription once it arrived (nil before, and again after a
        /// trigger's completion before its value cancelled it: a new one is then accepted, as in Combine).
        case open(Subscription?)
        /// The upstream completed (its completion was published once). Its subscription is kept: requests still
        /// reach it, and a trigger's completion before its value still cancels it, as in Combine.
        case completed(Subscription?)
        /// The downstream cancelled: every subscription is refused, nothing is kept.
        case cancelled

        /// The upstream subscription requests go to (and a trigger's completion cancels), if any.
        var subscription: Subscription? {
            switch self {
            case .open(let subscription), .completed(let subscription): return subscription
            case .cancelled: return nil
            }
        }
    }

    /// The trigger's gate. Its subscription is kept beside it: released when the trigger fires (a later one is
    /// then accepted again, as in Combine), kept when it completes first.
    enum Gate {
        /// The trigger has neither sent a value nor completed: the upstream's values are dropped.
        case shut
        /// The trigger completed before sending a value (its completion was published): still shut; a later
        /// trigger value still opens it, a later completion is published again, as in Combine.
        case triggerCompletedFirst
        /// The trigger sent a value: the upstream's values pass (for as long as the upstream is open).
        case open
    }

    private var downstream: Downstream?
    private var trigger: Subscription?
    private var requested = Subscribers.Demand.none
    private var turn = DownstreamTurn<Failure>()
    // The phases last: their tag bytes pack after the words instead of padding between them.
    private var upstream = UpstreamPhase.open(nil)
    private var gate = Gate.shut

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream's subscription arrived: the demand to request from it (`.none`: nothing yet), or nil to cancel
    /// it (a second subscription, or after the end).
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard case .open(nil) = upstream else { return nil }
        upstream = .open(subscription)
        return requested
    }

    /// The trigger's subscription arrived: true to request `.max(1)` from it, false to cancel it.
    mutating func triggerSubscribed(_ subscription: Subscription) -> Bool {
        if case .cancelled = upstream { return false }
        guard trigger == nil else { return false }
        trigger = subscription
        return true
    }

    /// The downstream asked for more: the subscription to forward it to (nil: kept until the upstream subscribes).
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        requested += demand
        return upstream.subscription
    }

    /// An upstream value arrived: the downstream to deliver it to (the caller took the turn and calls `leave()`
    /// after), or nil to drop it.
    mutating func valueReceived(on thread: ThreadID) -> Downstream? {
        guard gate == .open, case .open = upstream else {
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
        gate = .open
        defer { trigger = nil }
        return trigger
    }

    /// The upstream completed: the downstream if the caller delivers the completion now (and calls `leave()`
    /// after); nil if it is ignored or was queued for the thread calling the downstream.
    mutating func upstreamCompleted(
        _ completion: Subscribers.Completion<Failure>, on thread: ThreadID
    ) -> Downstream? {
        guard case .open(let subscription) = upstream else { return nil }
        guard let downstream else {
            assertionFailure("drop(untilOutputFrom:) released its downstream while the upstream was open")
            return nil
        }
        upstream = .completed(subscription)
        return turn.enter(thread, completion: completion) ? downstream : nil
    }

    /// The trigger completed. After it fired this only releases its subscription (`released`). Before, the
    /// completion is published: `deliver` is the downstream if the caller delivers it now (and calls `leave()`
    /// after), and `cancel` is the upstream subscription to cancel.
    mutating func triggerCompleted(
        _ completion: Subscribers.Completion<Failure>, on thread: ThreadID
    ) -> (cancel: Subscription?, deliver: Downstream?, released: Subscription?) {
        guard gate != .open else {
            defer { trigger = nil }
            return (nil, nil, trigger)
        }
        // The downstream is released before the gate opens or the trigger completes only by a cancel.
        guard let downstream else { return (nil, nil, nil) }
        gate = .triggerCompletedFirst
        let cancel: Subscription?
        switch upstream {
        case .open(let subscription):
            cancel = subscription
            upstream = .open(nil)
        case .completed(let subscription):
            cancel = subscription
            upstream = .completed(nil)
        case .cancelled:
            assertionFailure("drop(untilOutputFrom:) kept its downstream after the downstream cancelled")
            return (nil, nil, nil)
        }
        return (cancel, turn.enter(thread, completion: completion) ? downstream : nil, nil)
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
        // Nothing more can reach the downstream once the upstream has ended and the trigger has fired or
        // completed (the downstream's cancel released it already).
        guard turn.isIdle, gate != .shut else { return .done(released: nil) }
        if case .open = upstream { return .done(released: nil) }
        defer { downstream = nil }
        return .done(released: downstream)
    }

    /// The downstream cancelled: the upstream and trigger subscriptions to cancel, in that order, and the
    /// downstream, released after unlocking.
    mutating func cancelled() -> (upstream: Subscription?, trigger: Subscription?, released: Downstream?) {
        defer {
            upstream = .cancelled
            trigger = nil
            downstream = nil
        }
        return (upstream.subscription, trigger, downstream)
    }
}
