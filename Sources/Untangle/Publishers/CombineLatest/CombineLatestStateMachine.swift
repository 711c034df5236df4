// `@usableFromInline` so that the `@inlinable` ``CombineLatestSubscription`` can call it; the state machine itself is
// not generic and stays compiled once, here.
/// The pure bookkeeping of a combineLatest (`CombineLatest`, `CombineLatest3`, `CombineLatest4`): the operator's
/// phase (active, with how many upstreams have not finished; finishing; ended), how many upstreams still lack a
/// value, and where each upstream stands with the demand asked of them (``FanInUpstreams``). It never calls out:
/// every method returns what the caller must do after unlocking.
///
/// ```swift
/// guard machine.accepts(at: 0) else { return }
/// // store the value in the typed latest values, then:
/// switch machine.stored(isFirst: true) { case .formed: /* form the tuple; forward or queue it */ case .kept: break }
/// ```
///
/// The values themselves are not here: ``CombineLatestSubscription`` keeps them typed (``CombineLatestValues``) beside
/// this machine under the same lock, with the tuples formed while another thread forwards, and who forwards (the
/// lock's word, ``CombiningForwarder``); the machine tells the caller when a tuple forms and what to forward next.
///
/// Semantics: once every upstream has sent a value, every further value (from any upstream) forms one tuple of the
/// latest values. Nothing is coalesced: each value the upstreams were allowed to send yields its tuple, in the order
/// the values arrived. The combination finishes when every upstream has finished (even one that never sent a value:
/// Apple's rule "all upstream publishers need to finish"), after the tuples already formed; it fails, cancelling the
/// others, on the first failure.
///
/// **Demand:** every unit the downstream requests (or returns from `receive(_:)`) is requested from every upstream;
/// an upstream that subscribes late is asked for the total so far. So with `n` requested and `k` upstreams at most
/// `k × n` values arrive: tuples beyond the downstream's demand wait, in order, in the emitter; the buffer is
/// bounded by what was requested.
/// **Thread safety:** none: always mutated under the combineLatest's lock.
@usableFromInline
struct CombineLatestStateMachine {
    @usableFromInline
    enum Phase {
        /// Accepting values: `unfinished` upstreams have not finished.
        case active(unfinished: Int)
        /// Every upstream finished: no more tuples form; finish after forwarding those already formed.
        case finishing
        /// Finished, failed or cancelled: nothing more is forwarded.
        case ended
    }

    /// What the caller does with a value it has just stored as its upstream's latest.
    @usableFromInline
    enum Stored {
        /// Nothing more: some upstream has no value yet.
        case kept
        /// A tuple formed: the caller forms it and, under the same lock, either becomes the forwarder (delivering
        /// it itself, then running the forwarding loop) or queues it for the thread that forwards.
        case formed
    }

    /// The forwarder's next step.
    @usableFromInline
    enum Forward {
        /// Take the oldest queued tuple (under the lock) and deliver it.
        case value
        /// Deliver the finish: every tuple was forwarded.
        case finish
        /// Nothing to forward now; the caller is no longer the forwarder.
        case idle
    }

    /// What to do after unlocking, on a completion or a cancel.
    @usableFromInline
    struct Effects {
        /// Upstream subscriptions to cancel.
        @usableFromInline var cancel: [Subscription] = []
        /// The subscription of an upstream that completed, released after unlocking.
        @usableFromInline var released: Subscription?
        /// The latest values (and queued tuples) are no longer needed: the caller takes them out under the lock and
        /// releases them after unlocking (their deinit is user code).
        @usableFromInline var releaseValues = false
        /// The finish needs the forwarder: under the same lock the caller claims the role (then runs the
        /// forwarding loop after unlocking) or signals the thread that forwards.
        @usableFromInline var needsForwarder = false

        @inlinable
        init() {}
    }

    // The fields the per-value methods use are `@usableFromInline` (internal) so that those methods can be inlined
    // into the client's specialized subscription; only this type's methods mutate them.
    @usableFromInline var phase: Phase
    // Performance: the active phase's data, but apart from it: every value reads it, and a plain field costs the
    // per-value path nothing more than the count it replaced.
    /// How many upstreams have not sent a value yet (meaningful while active).
    @usableFromInline var missing: Int
    @usableFromInline var upstreams: FanInUpstreams

    @usableFromInline
    init(upstreamCount: Int) {
        phase = .active(unfinished: upstreamCount)
        missing = upstreamCount
        upstreams = FanInUpstreams(count: upstreamCount)
    }

    /// An upstream's subscription arrived: returns the demand to request from it (the total so far), or nil to
    /// cancel it (the combination has ended or this upstream already had a subscription or finished).
    @usableFromInline
    mutating func subscribed(_ subscription: Subscription, at index: Int) -> Subscribers.Demand? {
        guard case .active = phase else { return nil }
        return upstreams.admit(subscription, at: index)
    }

    /// The downstream asked for more (or returned demand): returns the subscriptions to forward it to.
    @usableFromInline
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        guard case .active = phase else { return [] }
        return upstreams.request(demand)
    }

    /// Whether a value from upstream `index` is to be stored (false: the combination ended or is finishing, or this
    /// upstream finished; the value is dropped).
    @inlinable
    func accepts(at index: Int) -> Bool {
        guard case .active = phase else { return false }
        return !upstreams.isEnded(at: index)
    }

    /// The caller stored an accepted value as its upstream's latest; `isFirst`: that upstream had none before.
    @inlinable
    mutating func stored(isFirst: Bool) -> Stored {
        guard case .active = phase else { CombineLatestStateMachine.storedNotAccepted(isFirst: isFirst, phase) }
        if isFirst {
            missing -= 1
        }
        return missing == 0 ? .formed : .kept
    }

    @usableFromInline
    @inline(never)
    static func storedNotAccepted(isFirst: Bool, _ phase: Phase) -> Never {
        impossibleEvent("CombineLatestStateMachine: stored(isFirst: \(isFirst)) in \(phase), for a value not accepted")
    }

    /// Whether values are still accepted (not finishing, not ended).
    @inlinable
    var isActive: Bool {
        if case .active = phase { return true }
        return false
    }

    /// Upstream `index` finished.
    @usableFromInline
    mutating func finished(at index: Int) -> Effects {
        guard case .active(let unfinished) = phase, !upstreams.isEnded(at: index) else { return Effects() }
        var effects = Effects()
        effects.released = upstreams.end(at: index)
        guard unfinished == 1 else {
            phase = .active(unfinished: unfinished - 1)
            return effects
        }
        phase = .finishing
        effects.releaseValues = true
        effects.needsForwarder = true
        return effects
    }

    /// Upstream `index` failed: ends the combination. Returns what to cancel and release, or nil if it had already
    /// ended or was finishing (the first completion wins).
    @usableFromInline
    mutating func failed(at index: Int) -> Effects? {
        guard case .active = phase else { return nil }
        // The failed upstream's subscription is over: it is not cancelled.
        let failed = upstreams.end(at: index)
        var effects = end()
        effects.released = failed
        return effects
    }

    /// The downstream cancelled: ends the combination. Returns what to cancel and release, or nil if it had already
    /// ended.
    @usableFromInline
    mutating func cancelled() -> Effects? {
        if case .ended = phase { return nil }
        return end()
    }

    private mutating func end() -> Effects {
        phase = .ended
        var effects = Effects()
        effects.cancel = upstreams.endAll()
        effects.releaseValues = true
        return effects
    }

    /// The forwarder's next step: the queued tuples in the order they formed (`hasQueued`: the subscription still
    /// holds one), then the finish. On `.finish` and `.idle` the caller gives the forwarder role up.
    @inlinable
    mutating func nextToForward(hasQueued: Bool) -> Forward {
        switch phase {
        case .ended:
            return .idle
        case _ where hasQueued:
            return .value
        case .finishing:
            phase = .ended
            return .finish
        case .active:
            return .idle
        }
    }
}
