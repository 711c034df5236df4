/// The pure state machine behind `catch`, `tryCatch` and `retry`: one current upstream at a time, replaced by a new
/// one when it fails, with the downstream's outstanding demand carried over exactly.
///
/// The downstream gets its subscription when the first upstream's subscription arrives (as in Combine), not at
/// subscribe time. A value from the current upstream with no outstanding demand is reported (the subscription
/// traps); signals from a replaced (stale) upstream are dropped, or a second failure trapped (`catch`).
///
/// **Demand:** `outstanding` is what the downstream requested and has not received yet; a new upstream is asked for
/// exactly that much, so the switch neither loses nor duplicates demand.
/// **Thread safety:** none: always mutated under its subscription's lock.
struct ReplacingUpstreamStateMachine {
    enum Phase {
        /// Upstream `generation` is being subscribed, or has not sent its subscription yet.
        case awaitingSubscription(generation: Int)
        case subscribed(Subscription, generation: Int)
        /// Upstream `generation` failed; its replacement (or the final completion) is being decided outside the
        /// lock (`catch` runs its handler then).
        case failing(generation: Int)
        case ended
    }

    /// Whether the downstream has its subscription yet: it is handed over with the first upstream subscription.
    enum Link {
        case pending
        case established
    }

    /// The `subscribe` call in progress, if any. A replacement decided while a `subscribe` call is still on the
    /// stack (an upstream that fails synchronously while being subscribed) waits for that call to return and is
    /// subscribed by the same loop: synchronous failures iterate instead of recursing.
    enum SubscribeCall {
        case idle
        case running
        case runningThenNext
    }

    /// What a completion of the first upstream arriving before its subscription does.
    enum EarlyCompletion {
        /// Dropped (`catch`).
        case ignored
        /// Handled like any completion: retried, or passed on (`retry`), after handing the downstream its
        /// subscription (Combine passes it on without one; Untangle's subscribers always hear of the subscription
        /// first).
        case handled
    }

    /// What a failure from an upstream that already failed does.
    enum RepeatedFailure {
        /// Dropped (`retry`: the old subscription of a resubscribed publisher).
        case ignored
        /// Reported: the subscription traps (`catch`).
        case trapped
    }

    enum Delivery {
        /// Stale upstream, or ended: drop the value.
        case drop
        case deliver
        /// The current upstream sent a value nobody requested: trap.
        case unrequested
    }

    enum SubscribedAction {
        /// Stale or ended: cancel the subscription.
        case cancel
        /// Request this demand (if not `.none`) from the new subscription.
        case request(Subscribers.Demand)
        /// First upstream subscription: give the downstream its subscription, then request this demand (asked for
        /// before the handover through the upstream-facing subscriber), if the subscription is still live.
        case handOver(Subscribers.Demand)
    }

    enum CompletionAction {
        case ignore
        /// A failure from an upstream that already failed, where that traps.
        case trap
        /// Finished: pass it on (the released subscription goes with it, to be let go outside the lock).
        case finish(released: Subscription?)
        /// Failed: decide the replacement outside the lock, then call `replace` or `endFromFailing`.
        case decide(released: Subscription?)
    }

    enum ReplaceAction {
        /// Ended meanwhile (cancelled): subscribe nothing.
        case none
        /// Subscribe generation `generation` now (this thread runs the subscribe loop).
        case subscribeNow(generation: Int)
        /// A `subscribe` call is still on the stack: its loop subscribes the replacement when it returns.
        case deferred
    }

    let earlyCompletion: EarlyCompletion
    let repeatedFailure: RepeatedFailure
    private(set) var phase = Phase.awaitingSubscription(generation: 0)
    private(set) var link = Link.pending
    /// The first upstream's `subscribe` call starts at once.
    private(set) var subscribeCall = SubscribeCall.running
    private(set) var outstanding = Subscribers.Demand.none

    init(earlyCompletion: EarlyCompletion, repeatedFailure: RepeatedFailure) {
        self.earlyCompletion = earlyCompletion
        self.repeatedFailure = repeatedFailure
    }

    /// The generation whose signals count (nil when failing or ended).
    var currentGeneration: Int? {
        switch phase {
        case .awaitingSubscription(let generation), .subscribed(_, let generation): return generation
        case .failing, .ended: return nil
        }
    }

    var isEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// Upstream `generation` delivered its subscription.
    mutating func subscribed(_ subscription: Subscription, generation: Int) -> SubscribedAction {
        guard case .awaitingSubscription(generation) = phase else { return .cancel }
        phase = .subscribed(subscription, generation: generation)
        guard case .established = link else {
            link = .established
            return .handOver(outstanding)
        }
        return .request(outstanding)
    }

    /// The stream ends before the downstream got its subscription (retry passes on a completion that arrived
    /// before the first upstream's subscription): true once, telling the caller to hand the subscription over before
    /// the completion, so the subscriber still hears of its subscription first.
    mutating func claimPendingLink() -> Bool {
        guard case .pending = link else { return false }
        link = .established
        return true
    }

    /// The live subscription of upstream `generation`, if it is still the current one.
    func liveSubscription(generation: Int) -> Subscription? {
        guard case .subscribed(let subscription, generation) = phase else { return nil }
        return subscription
    }

    /// The downstream requested more: returns the subscription to forward to, if one is live.
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        guard !isEnded else { return nil }
        outstanding += demand
        if case .subscribed(let subscription, _) = phase { return subscription }
        return nil
    }

    /// A value from upstream `generation` arrived.
    mutating func deliver(generation: Int) -> Delivery {
        guard currentGeneration == generation else { return .drop }
        guard outstanding > .none else { return .unrequested }
        outstanding -= 1
        return .deliver
    }

    /// The downstream returned more demand from a value of upstream `generation`: returns that upstream's live
    /// subscription (for `retry`, which requests it there instead of returning it).
    mutating func add(_ demand: Subscribers.Demand, generation: Int) -> Subscription? {
        guard !isEnded else { return nil }
        outstanding += demand
        return liveSubscription(generation: generation)
    }

    /// Upstream `generation` completed (not a replacement whose completion is final).
    mutating func completed(generation: Int, failed: Bool) -> CompletionAction {
        guard let current = currentGeneration, current == generation else {
            if failed, case .trapped = repeatedFailure, !isEnded { return .trap }
            return .ignore
        }
        if case .pending = link, case .ignored = earlyCompletion { return .ignore }
        let released = liveSubscription(generation: generation)
        if failed {
            phase = .failing(generation: generation)
            return .decide(released: released)
        }
        phase = .ended
        return .finish(released: released)
    }

    /// The failure of upstream `generation` is to be replaced by generation `generation + 1`.
    mutating func replace(generation: Int) -> ReplaceAction {
        guard case .failing(generation) = phase else {
            guard isEnded else { impossibleEvent("ReplacingUpstreamStateMachine: replace for an upstream not failing") }
            return .none
        }
        phase = .awaitingSubscription(generation: generation + 1)
        switch subscribeCall {
        case .idle:
            subscribeCall = .running
            return .subscribeNow(generation: generation + 1)
        case .running, .runningThenNext:
            subscribeCall = .runningThenNext
            return .deferred
        }
    }

    /// A `subscribe` call returned: the generation to subscribe next (decided meanwhile), if any.
    mutating func subscribeReturned() -> Int? {
        if case .idle = subscribeCall {
            impossibleEvent("ReplacingUpstreamStateMachine: subscribeReturned with no subscribe call running")
        }
        if case .runningThenNext = subscribeCall, case .awaitingSubscription(let generation) = phase {
            subscribeCall = .running
            return generation
        }
        subscribeCall = .idle
        return nil
    }

    /// The failure of upstream `generation` ends the stream (no replacement): false if ended meanwhile.
    mutating func endFromFailing(generation: Int) -> Bool {
        guard case .failing(generation) = phase else {
            guard isEnded else {
                impossibleEvent("ReplacingUpstreamStateMachine: endFromFailing for an upstream not failing")
            }
            return false
        }
        phase = .ended
        return true
    }

    /// A replacement whose completion is final completed: false if it is stale or the stream already ended.
    mutating func endFromReplacement(generation: Int) -> (ended: Bool, released: Subscription?) {
        guard currentGeneration == generation else { return (false, nil) }
        let released = liveSubscription(generation: generation)
        phase = .ended
        return (true, released)
    }

    /// Ends the subscription (downstream cancel); returns the live upstream to cancel.
    mutating func cancel() -> Subscription? {
        defer { phase = .ended }
        if case .subscribed(let subscription, _) = phase { return subscription }
        return nil
    }
}
