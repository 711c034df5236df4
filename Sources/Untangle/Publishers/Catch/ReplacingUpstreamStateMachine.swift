/// The pure state machine behind `catch`, `tryCatch` and `retry`: one current upstream at a time, replaced by a new
/// one when it fails, with the downstream's outstanding demand carried over exactly.
///
/// **Demand:** `outstanding` is what the downstream requested and has not received yet; a new upstream is asked for
/// exactly that much, so the switch neither loses nor duplicates demand.
/// **Thread safety:** none: always mutated under its subscription's lock.
struct ReplacingUpstreamStateMachine {
    enum Phase {
        /// Waiting for the (current) upstream's subscription.
        case awaitingSubscription(generation: Int)
        case subscribed(Subscription, generation: Int)
        case ended
    }

    private(set) var phase = Phase.awaitingSubscription(generation: 0)
    private(set) var outstanding = Subscribers.Demand.none

    var generation: Int? {
        switch phase {
        case .awaitingSubscription(let generation), .subscribed(_, let generation): return generation
        case .ended: return nil
        }
    }

    /// Upstream `generation` delivered its subscription: returns the demand to request (nil: cancel it, it is stale).
    mutating func subscribed(_ subscription: Subscription, generation: Int) -> Subscribers.Demand? {
        guard case .awaitingSubscription(generation) = phase else { return nil }
        phase = .subscribed(subscription, generation: generation)
        return outstanding
    }

    /// The downstream requested more: returns the subscription to forward to, if one is live.
    mutating func request(_ demand: Subscribers.Demand) -> Subscription? {
        guard generation != nil else { return nil }
        outstanding += demand
        if case .subscribed(let subscription, _) = phase { return subscription }
        return nil
    }

    /// A value from upstream `generation` is about to be delivered: false if it is stale (must be dropped).
    mutating func deliver(generation: Int) -> Bool {
        guard self.generation == generation else { return false }
        outstanding -= 1
        return true
    }

    /// The downstream returned more demand from `receive(_:)`.
    mutating func add(_ demand: Subscribers.Demand) {
        if generation != nil { outstanding += demand }
    }

    /// Upstream `generation` failed and will be replaced: starts the next generation. False if stale or ended.
    mutating func replace(generation: Int) -> Bool {
        guard self.generation == generation else { return false }
        phase = .awaitingSubscription(generation: generation + 1)
        return true
    }

    /// Ends the subscription (completion passed on, or downstream cancel); returns the live upstream to cancel.
    mutating func end() -> Subscription? {
        defer { phase = .ended }
        if case .subscribed(let subscription, _) = phase { return subscription }
        return nil
    }

    /// Ends because upstream `generation` completed: false if that completion is stale.
    mutating func endFromUpstream(generation: Int) -> Bool {
        guard self.generation == generation else { return false }
        phase = .ended
        return true
    }
}
