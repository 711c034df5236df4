// `@usableFromInline` so that the `@inlinable` ``CombineLatestSubscription`` can call it; the state machine itself is
// not generic and stays compiled once, here.
/// The pure bookkeeping of a combineLatest (`CombineLatest`, `CombineLatest3`, `CombineLatest4`): the upstream
/// subscriptions, how many upstreams still lack a value, which have finished, the demand requested so far and the
/// operator's phase. It never calls out: every method returns what the caller must do after unlocking.
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
        /// Accepting values.
        case active
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
    @usableFromInline var phase = Phase.active
    private var subscriptions: [Subscription?]
    private var requested = Subscribers.Demand.none
    /// How many upstreams have not sent a value yet.
    @usableFromInline var missing: Int
    @usableFromInline var finished: [Bool]
    private var finishedCount = 0

    @usableFromInline
    init(upstreamCount: Int) {
        subscriptions = Array(repeating: nil, count: upstreamCount)
        missing = upstreamCount
        finished = Array(repeating: false, count: upstreamCount)
    }

    /// An upstream's subscription arrived: admitted with the demand to request from it, or rejected (cancelled, as
    /// the combination has ended or this upstream already had a subscription).
    @usableFromInline
    mutating func subscribed(_ subscription: Subscription, at index: Int) -> UpstreamAdmission {
        guard case .active = phase, subscriptions[index] == nil, !finished[index] else { return .rejected }
        subscriptions[index] = subscription
        return .admitted(requesting: requested)
    }

    /// The downstream asked for more (or returned demand): returns the subscriptions to forward it to.
    @usableFromInline
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        guard case .active = phase else { return [] }
        requested += demand
        return subscriptions.compactMap { $0 }
    }

    /// Whether a value from upstream `index` is to be stored (false: the combination ended or is finishing, or this
    /// upstream finished; the value is dropped).
    @inlinable
    func accepts(at index: Int) -> Bool {
        guard case .active = phase else { return false }
        return !finished[index]
    }

    /// The caller stored an accepted value as its upstream's latest; `isFirst`: that upstream had none before.
    @inlinable
    mutating func stored(isFirst: Bool) -> Stored {
        if isFirst {
            missing -= 1
        }
        return missing == 0 ? .formed : .kept
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
        guard case .active = phase, !finished[index] else { return Effects() }
        finished[index] = true
        subscriptions[index] = nil
        finishedCount += 1
        guard finishedCount == finished.count else { return Effects() }
        phase = .finishing
        var effects = Effects()
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
        subscriptions[index] = nil
        return end()
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
        effects.cancel = subscriptions.compactMap { $0 }
        subscriptions = subscriptions.map { _ in nil }
        effects.releaseValues = true
        return effects
    }

    /// The forwarder's next step: the queued tuples in the order they formed (`hasQueued`: the subscription still
    /// holds one), then the finish. On `.finish` and `.idle` the caller gives the forwarder role up.
    @inlinable
    mutating func nextToForward(hasQueued: Bool) -> Forward {
        if case .ended = phase {
            return .idle
        }
        if hasQueued {
            return .value
        }
        if case .finishing = phase {
            phase = .ended
            return .finish
        }
        return .idle
    }
}
