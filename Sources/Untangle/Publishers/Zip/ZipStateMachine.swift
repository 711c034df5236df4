// `@usableFromInline` so that the `@inlinable` ``CombiningSubscription`` can call it; the state machine itself is not generic
// and stays compiled once, here.
/// The pure state machine of a zip (`Zip`, `Zip3`, `Zip4`): the upstream subscriptions, the values each upstream
/// sent that are not paired yet, the tuples formed but not yet handed to the downstream's emitter, and who hands
/// them over. It never calls out: every method returns what the caller must do after unlocking.
///
/// Values are stored type-erased (`Any`): input `i` only ever stores values of its publisher's `Output`, and the
/// generated publisher casts each formed group back into its tuple, so the casts cannot fail. This keeps one
/// hand-written core for every arity.
///
/// Tuples are formed under the lock, in pairing order, and handed to the emitter by one thread at a time (the
/// *forwarder*), so the downstream sees them in the order they were formed whichever threads the upstreams send on.
///
/// **Demand:** every unit the downstream requests (or returns from `receive(_:)`) goes to every upstream (to the one
/// delivering the tuple, if any, as its `receive(_:)`'s return value: `returnsDemandToSender`);
/// an upstream that subscribes late is asked for the total so far. A tuple needs one value from each upstream, so at
/// most as many tuples form as were requested, and each upstream's unpaired values are bounded by the total
/// requested minus the tuples formed.
/// **Thread safety:** none: always mutated under the zip's lock.
@usableFromInline
struct ZipStateMachine: CombiningStateMachine {
    @usableFromInline static let name = "Zip"

    @usableFromInline typealias Effects = CombiningEffects
    @usableFromInline typealias Forward = CombiningForward

    private var subscriptions: [Subscription?]
    private var requested = Subscribers.Demand.none
    private var queues: [RingBuffer<Any>]
    private var finished: [Bool]
    private var outbox = CombiningOutbox()

    @usableFromInline
    init(upstreamCount: Int) {
        subscriptions = Array(repeating: nil, count: upstreamCount)
        queues = Array(repeating: RingBuffer(), count: upstreamCount)
        finished = Array(repeating: false, count: upstreamCount)
    }

    /// Upstream `index`'s subscription arrived: returns the demand to request from it (the total so far), or nil to
    /// cancel it (the zip has ended, or this upstream already had a subscription or finished).
    @usableFromInline
    mutating func innerSubscribed(_ index: Int, _ subscription: Subscription) -> Subscribers.Demand? {
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

    // As in Combine: demand the downstream requests or returns while an upstream delivers a tuple goes back to that
    // upstream as the return value of its `receive(_:)`, and to the others as a request.
    @usableFromInline
    static var returnsDemandToSender: Bool { true }

    /// As ``request(_:)``, leaving out upstream `sender`'s subscription (it gets the demand as its return value).
    @usableFromInline
    mutating func request(_ demand: Subscribers.Demand, except sender: Int) -> [Subscription] {
        guard outbox.isActive else { return [] }
        requested += demand
        return subscriptions.indices.compactMap { $0 == sender ? nil : subscriptions[$0] }
    }

    /// Upstream `index` sent a value.
    @usableFromInline
    mutating func received(_ value: Any, at index: Int) -> Effects {
        guard outbox.isActive, !finished[index] else { return Effects() }
        queues[index].append(value)
        // Tuples form eagerly, so before this value at least one queue was empty: at most one tuple forms now.
        guard queues.allSatisfy({ !$0.isEmpty }) else { return Effects() }
        var group: [Any] = []
        group.reserveCapacity(queues.count)
        for input in queues.indices {
            group.append(queues[input].popFirst()!)
        }
        outbox.append(group)
        var effects = finishIfExhausted()
        effects.startForwarding = outbox.claimForwarding()
        return effects
    }

    /// Upstream `index` finished.
    @usableFromInline
    mutating func finished(at index: Int) -> Effects {
        guard outbox.isActive else { return Effects() }
        finished[index] = true
        subscriptions[index] = nil
        var effects = finishIfExhausted()
        effects.startForwarding = outbox.claimForwarding()
        return effects
    }

    // No tuple can form once a finished upstream has no unpaired value left: the zip finishes (after the tuples
    // already formed) and the other upstreams are cancelled; their unpaired values can never be paired.
    private mutating func finishIfExhausted() -> Effects {
        guard queues.indices.contains(where: { finished[$0] && queues[$0].isEmpty }) else { return Effects() }
        outbox.finish()
        var effects = Effects()
        effects.cancel = takeSubscriptions()
        effects.release = takeQueuedValues()
        return effects
    }

    /// Upstream `index` failed: ends the zip. Returns what to cancel (every upstream) and release, or nil if it had already ended or was
    /// finishing (the first completion wins).
    @usableFromInline
    mutating func failed(at index: Int) -> Effects? {
        guard outbox.isActive else { return nil }
        // As in Combine, every upstream subscription is cancelled, the failed one's too (cancelling a finished
        // subscription does nothing).
        return end()
    }

    /// The downstream cancelled: ends the zip. Returns what to cancel and release, or nil if it had already ended.
    @usableFromInline
    mutating func cancelled() -> Effects? {
        if outbox.isEnded { return nil }
        return end()
    }

    private mutating func end() -> Effects {
        var effects = Effects()
        effects.cancel = takeSubscriptions()
        effects.release = takeQueuedValues()
        effects.release.append(contentsOf: outbox.end())
        return effects
    }

    /// The forwarder takes the next formed tuple, or `.finish`, or gives up forwarding.
    @usableFromInline
    mutating func nextToForward() -> Forward {
        outbox.nextToForward()
    }

    private mutating func takeSubscriptions() -> [Subscription] {
        defer { subscriptions = subscriptions.map { _ in nil } }
        return subscriptions.compactMap { $0 }
    }

    private mutating func takeQueuedValues() -> [Any] {
        var values: [Any] = []
        for input in queues.indices {
            while let value = queues[input].popFirst() {
                values.append(value)
            }
        }
        return values
    }
}

/// The subscription of every zip publisher.
@usableFromInline
typealias ZipSubscription<Downstream: Subscriber> = CombiningSubscription<ZipStateMachine, Downstream>
