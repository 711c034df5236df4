/// The pure state machine of a switchToLatest: the outer subscription, which inner is current (a generation
/// number) and where it stands, and the downstream's outstanding demand. It never calls out.
///
/// Switching bumps the generation under the lock. Every value carries its inner's generation through the emitter
/// and is checked again when it is about to be delivered (``deliver(_:)``), so a value of a replaced inner is dropped
/// even if it was queued before the switch: no delivery of an older inner starts after a switch is decided.
///
/// Each admitted value also gets a ticket: while the inner's `receive(_:)` is still running, the demand the
/// downstream returns for that value is handed back through the ticket (so the inner gets it as the return value of
/// `receive(_:)`, as in Combine); once that call has returned, the demand is requested from the current inner.
///
/// **Demand:** the outer publisher is asked for `.unlimited`. `demand` is what the downstream asked for (or returned
/// from `receive(_:)`) and has not received yet; a new inner is asked for all of it (the demand carries over), and
/// later downstream requests go to the current inner only.
/// **Thread safety:** none: always mutated under the switch's lock.
@usableFromInline
struct SwitchToLatestStateMachine: FanInStateMachine {
    @usableFromInline
    enum Phase {
        case running
        /// The outer publisher failed while the current inner had not delivered its subscription yet: when it
        /// does, it is asked for the demand and then forgotten, as in Combine.
        case outerFailedBeforeInnerSubscription
        case ended
    }

    /// What to do with a value an inner sent.
    @usableFromInline
    enum Admission: Equatable {
        /// Offer it to the emitter with this ticket.
        case offer(ticket: Int)
        /// The inner was replaced, or the switch ended: drop it and return no demand.
        case drop
        /// The current inner sent a value while the downstream has no demand: Combine traps.
        case trap
    }

    /// What to do when an inner completes.
    @usableFromInline
    enum InnerCompletion {
        case ignore
        /// It completed before delivering its subscription: Combine traps.
        case trap
        /// It finished: release its subscription after unlocking, and finish downstream if `finish`.
        case finished(released: Subscription, finish: Bool)
        /// It failed: cancel the outer (if any) and fail downstream.
        case failed(cancel: Subscription?)
    }

    @usableFromInline
    var outer = UpstreamSlot.awaiting
    /// The current inner's generation (0: none yet).
    @usableFromInline
    var generation = 0
    /// Where the current inner (generation `generation`) stands; ended: none yet, or it completed (the two are
    /// answered alike).
    @usableFromInline
    var current = UpstreamSlot.ended
    @usableFromInline
    var phase = Phase.running
    @usableFromInline
    var demand = Subscribers.Demand.none
    @usableFromInline
    var nextTicket = 0
    /// Values whose inner is still inside `receive(_:)`, with the demand the downstream returned for them.
    @usableFromInline
    var replies: [(ticket: Int, demand: Subscribers.Demand)] = []

    @inlinable
    init() {}

    @inlinable
    var isTerminated: Bool {
        if case .running = phase { return false }
        return true
    }

    @inlinable
    var currentIsLive: Bool {
        switch current {
        case .awaiting, .subscribed: true
        case .ended: false
        }
    }

    @inlinable
    var currentSubscription: Subscription? {
        current.subscription
    }

    /// The outer subscription arrived: false if it must be cancelled instead.
    @inlinable
    mutating func outerSubscribed(_ subscription: Subscription) -> Bool {
        guard !isTerminated else { return false }
        return outer.accept(subscription)
    }

    /// A new inner publisher arrived: returns its generation and the replaced inner's subscription to cancel (nil:
    /// the switch has ended or the outer has finished; ignore the publisher).
    @inlinable
    mutating func switched() -> (generation: Int, replaced: Subscription?)? {
        guard !isTerminated else { return nil }
        if outer.isEnded { return nil }
        generation += 1
        let replaced = currentSubscription
        current = .awaiting
        return (generation, replaced)
    }

    /// Inner `id` delivered a subscription: returns the demand to request from it (nothing if `.none`), or nil to
    /// cancel it (a replaced inner, a second subscription, or the switch has ended). The subscription of an inner
    /// that has already finished is left alone (`.none`), as Combine does.
    @inlinable
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        checkIssued(id, 1..<generation + 1, "innerSubscribed")
        guard id == generation else { return nil }
        switch current {
        case .awaiting:
            switch phase {
            case .running:
                current = .subscribed(subscription)
                return demand
            case .outerFailedBeforeInnerSubscription:
                current = .ended
                phase = .ended
                return demand
            case .ended:
                return nil
            }
        case .subscribed:
            return nil
        case .ended:
            return Subscribers.Demand.none
        }
    }

    /// Inner `id` sent a value (before it reaches the emitter).
    @inlinable
    mutating func admit(_ id: Int) -> Admission {
        checkIssued(id, 1..<generation + 1, "admit")
        guard !isTerminated, id == generation, currentIsLive else { return .drop }
        guard demand > .none else { return .trap }
        nextTicket &+= 1
        replies.append((nextTicket, .none))
        return .offer(ticket: nextTicket)
    }

    /// The inner's `receive(_:)` for `ticket` is about to return: the demand to return from it.
    @inlinable
    mutating func takeReply(_ ticket: Int) -> Subscribers.Demand {
        // Every admitted value's ticket waits here until its inner's `receive(_:)` takes it; nothing else removes it.
        guard let index = replies.lastIndex(where: { $0.ticket == ticket }) else {
            impossibleEvent(
                "SwitchToLatestStateMachine: takeReply(\(ticket)) for a ticket never admitted or taken twice")
        }
        return replies.remove(at: index).demand
    }

    /// A value of inner `id` is about to be delivered: true if that inner is still current (the value uses up one
    /// unit of demand); false if it was replaced (drop the value).
    @inlinable
    mutating func deliver(_ id: Int) -> Bool {
        checkIssued(id, 1..<generation + 1, "deliver")
        guard id == generation, !isTerminated else { return false }
        if demand > .none {
            demand -= 1
        }
        return true
    }

    /// The downstream returned `more` for the value with `ticket` of inner `id`: returns the subscription to
    /// request it from, or nil when it goes back as the return value of the inner's `receive(_:)` (still running)
    /// or there is no current inner to ask.
    @inlinable
    mutating func delivered(_ id: Int, ticket: Int, more: Subscribers.Demand) -> Subscription? {
        checkIssued(id, 1..<generation + 1, "delivered")
        guard !isTerminated else { return nil }
        demand += more
        if id == generation, let index = replies.lastIndex(where: { $0.ticket == ticket }) {
            replies[index].demand += more
            return nil
        }
        return currentSubscription
    }

    /// The downstream asked for more: returns the current inner's subscription to forward the request to.
    @inlinable
    mutating func request(_ more: Subscribers.Demand) -> [Subscription] {
        guard !isTerminated else { return [] }
        demand += more
        return currentSubscription.map { [$0] } ?? []
    }

    /// Inner `id` finished or failed. A replaced inner's completion is ignored.
    @inlinable
    mutating func innerCompleted(_ id: Int, failed: Bool) -> InnerCompletion {
        checkIssued(id, 1..<generation + 1, "innerCompleted")
        guard !isTerminated, id == generation else { return .ignore }
        switch current {
        case .awaiting:
            return .trap
        case .ended:
            return .ignore
        case .subscribed(let subscription):
            current = .ended
            if failed {
                phase = .ended
                let outerSubscription = takeOuter()
                return .failed(cancel: outerSubscription)
            }
            if outer.isEnded {
                phase = .ended
                return .finished(released: subscription, finish: true)
            }
            return .finished(released: subscription, finish: false)
        }
    }

    /// The outer publisher finished: `finish` if no inner is live (the switch finishes now); `released` is the
    /// outer subscription, to be released after unlocking.
    @inlinable
    mutating func outerFinished() -> (finish: Bool, released: Subscription?) {
        guard !isTerminated else { return (false, nil) }
        if outer.isEnded { return (false, nil) }
        let released = outer.end()
        if !currentIsLive {
            phase = .ended
            return (true, released)
        }
        return (false, released)
    }

    /// The outer publisher failed: returns the current inner's subscription to cancel and the outer one to release
    /// after unlocking, or nil if the switch had already ended (ignore the failure).
    @inlinable
    mutating func outerFailed() -> (cancel: [Subscription], released: Subscription?)? {
        guard !isTerminated else { return nil }
        if outer.isEnded { return nil }
        let released = outer.end()
        if case .awaiting = current {
            phase = .outerFailedBeforeInnerSubscription
            return ([], released)
        }
        phase = .ended
        let inner = currentSubscription
        current = .ended
        return (inner.map { [$0] } ?? [], released)
    }

    /// The downstream's cancel: ends the switch and returns what to cancel, the current inner first (nil if it had
    /// already ended).
    @inlinable
    mutating func cancelled() -> FanInEnding? {
        if case .outerFailedBeforeInnerSubscription = phase {
            // The failure was delivered; a late inner subscription is now cancelled rather than asked.
            phase = .ended
            return nil
        }
        guard !isTerminated else { return nil }
        phase = .ended
        var toCancel: [Subscription] = []
        if let inner = currentSubscription {
            toCancel.append(inner)
        }
        current = .ended
        if let outerSubscription = takeOuter() {
            toCancel.append(outerSubscription)
        }
        return FanInEnding(cancel: toCancel)
    }

    @inlinable
    mutating func takeOuter() -> Subscription? {
        outer.end()
    }
}
