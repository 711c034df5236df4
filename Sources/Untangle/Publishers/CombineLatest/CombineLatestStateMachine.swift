// `@usableFromInline` so that the `@inlinable` ``CombiningSubscription`` can call it; the state machine itself is not generic
// and stays compiled once, here.
/// The pure state machine of a combineLatest (`CombineLatest`, `CombineLatest3`, `CombineLatest4`): the upstream
/// subscriptions, each upstream's latest value, the tuples formed but not yet handed to the downstream's emitter,
/// and who hands them over. It never calls out: every method returns what the caller must do after unlocking.
///
/// Values are stored type-erased (`Any`): input `i` only ever stores values of its publisher's `Output`, and the
/// generated publisher casts each formed group back into its tuple, so the casts cannot fail. This keeps one
/// hand-written core for every arity.
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
struct CombineLatestStateMachine: CombiningStateMachine {
    @usableFromInline static let name = "CombineLatest"

    @usableFromInline typealias Effects = CombiningEffects
    @usableFromInline typealias Forward = CombiningForward

    private var subscriptions: [Subscription?]
    private var requested = Subscribers.Demand.none
    private var latest: [Any?]
    private var missing: Int
    private var finished: [Bool]
    private var finishedCount = 0
    private var outbox = CombiningOutbox()

    @usableFromInline
    init(upstreamCount: Int) {
        subscriptions = Array(repeating: nil, count: upstreamCount)
        latest = Array(repeating: nil, count: upstreamCount)
        missing = upstreamCount
        finished = Array(repeating: false, count: upstreamCount)
    }

    /// An upstream's subscription arrived: returns the demand to request from it (nil: cancel it instead, because
    /// the combination has ended or this upstream already had a subscription).
    @usableFromInline
    mutating func subscribed(_ subscription: Subscription, at index: Int) -> Subscribers.Demand? {
        guard outbox.isActive, subscriptions[index] == nil, !finished[index] else { return nil }
        subscriptions[index] = subscription
        return requested
    }

    /// The downstream asked for more (or returned demand): returns the subscriptions to forward it to.
    @usableFromInline
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        guard outbox.isActive else { return [] }
        requested += demand
        return subscriptions.compactMap { $0 }
    }

    /// Upstream `index` sent a value.
    @usableFromInline
    mutating func received(_ value: Any, at index: Int) -> Effects {
        guard outbox.isActive, !finished[index] else { return Effects() }
        var effects = Effects()
        if let previous = latest[index] {
            effects.replaced = previous
        } else {
            missing -= 1
        }
        latest[index] = value
        if missing == 0 {
            outbox.append(latest.map { $0! })
            effects.startForwarding = outbox.claimForwarding()
        }
        return effects
    }

    /// Upstream `index` finished.
    @usableFromInline
    mutating func finished(at index: Int) -> Effects {
        guard outbox.isActive, !finished[index] else { return Effects() }
        finished[index] = true
        subscriptions[index] = nil
        finishedCount += 1
        guard finishedCount == finished.count else { return Effects() }
        outbox.finish()
        var effects = Effects()
        effects.release = takeLatestValues()
        effects.startForwarding = outbox.claimForwarding()
        return effects
    }

    /// Upstream `index` failed: ends the combination. Returns what to cancel and release, or nil if it had already ended
    /// or was finishing (the first completion wins).
    @usableFromInline
    mutating func failed(at index: Int) -> Effects? {
        guard outbox.isActive else { return nil }
        // The failed upstream's subscription is over: it is not cancelled.
        subscriptions[index] = nil
        return end()
    }

    /// The downstream cancelled: ends the combination. Returns what to cancel and release, or nil if it had already
    /// ended.
    @usableFromInline
    mutating func cancelled() -> Effects? {
        if outbox.isEnded { return nil }
        return end()
    }

    private mutating func end() -> Effects {
        var effects = Effects()
        effects.cancel = subscriptions.compactMap { $0 }
        subscriptions = subscriptions.map { _ in nil }
        effects.release = takeLatestValues()
        effects.release.append(contentsOf: outbox.end())
        return effects
    }

    /// The forwarder takes the next formed tuple, or `.finish`, or gives up forwarding.
    @usableFromInline
    mutating func nextToForward() -> Forward {
        outbox.nextToForward()
    }

    private mutating func takeLatestValues() -> [Any] {
        defer { latest = latest.map { _ in nil } }
        return latest.compactMap { $0 }
    }
}

/// The subscription of every combineLatest publisher.
@usableFromInline
typealias CombineLatestSubscription<Downstream: Subscriber> = CombiningSubscription<
    CombineLatestStateMachine, Downstream
>
