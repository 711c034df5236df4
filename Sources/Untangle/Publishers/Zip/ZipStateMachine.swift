import UntangleSync

// `@usableFromInline` so that the `@inlinable` ``ZipSubscription`` can call it; the state machine itself is not
// generic and stays compiled once, here.
/// The pure state machine of a zip (`Zip`, `Zip3`, `Zip4`): where each upstream stands (``FanInUpstreams``), the
/// values each upstream sent that are not paired yet, and the outbox (``CombiningOutbox``): the zip's phase, the
/// tuples formed but not yet handed to the downstream's emitter, and who hands them over. It never calls out: every
/// method returns what the caller must do after unlocking.
///
/// Values are stored type-erased (`Any`): input `i` only ever stores values of its publisher's `Output`, and the
/// generated publisher casts each formed group back into its tuple, so the casts cannot fail. This keeps one
/// hand-written core for every arity.
///
/// Tuples are formed under the lock, in pairing order, and handed to the emitter by one thread at a time (the
/// *forwarder*), so the downstream sees them in the order they were formed whichever threads the upstreams send on.
///
/// The zip finishes by its ``ZipFinishRule``: Combine's (`Publishers.Zip`) as soon as a finished upstream has no
/// unpaired value left; RxSwift's (UntangleExtras' zips that keep RxSwift's completion) only once every upstream
/// has finished.
///
/// **Demand:** every unit the downstream requests (or returns from `receive(_:)`) goes to every upstream (to the one
/// delivering the tuple, if any, as its `receive(_:)`'s return value, as Combine's zip does: ``CombiningSender``);
/// an upstream that subscribes late is asked for the total so far. A tuple needs one value from each upstream, so at
/// most as many tuples form as were requested, and each upstream's unpaired values are bounded by the total
/// requested minus the tuples formed.
/// **Thread safety:** none: always mutated under the zip's lock.
@usableFromInline
struct ZipStateMachine: FanInStateMachine {
    /// What the zip's subscription does after unlocking.
    @usableFromInline
    struct Effects {
        /// The caller became the forwarder: it must run the forwarding loop.
        @usableFromInline var startForwarding = false
        /// Upstream subscriptions to cancel.
        @usableFromInline var cancel: [Subscription] = []
        /// Values and subscriptions no longer needed, released by the caller outside the lock (their deinit is user
        /// code).
        @usableFromInline var release: [Any] = []

        @inlinable
        init() {}
    }

    @usableFromInline var upstreams: FanInUpstreams
    private var queues: [RingBuffer<Any>]
    private var outbox = CombiningOutbox()
    private let senders: CombiningSender
    /// When the zip finishes (a constant: read on the finishing path, and for a value that forms no tuple).
    private let finishRule: ZipFinishRule

    @usableFromInline
    init(upstreamCount: Int, senders: CombiningSender, finishRule: ZipFinishRule = .whenAnUpstreamRunsOut) {
        upstreams = FanInUpstreams(count: upstreamCount)
        queues = Array(repeating: RingBuffer(), count: upstreamCount)
        self.senders = senders
        self.finishRule = finishRule
    }

    /// Upstream `index`'s subscription arrived: returns the demand to request from it (the total so far), or nil to
    /// cancel it (the zip has ended, or this upstream already had a subscription or finished).
    @usableFromInline
    mutating func innerSubscribed(_ index: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard outbox.isActive else { return nil }
        return upstreams.admit(subscription, at: index)
    }

    /// The downstream asked for more (or returned demand): returns the subscriptions to forward it to, leaving out
    /// the upstream delivering a tuple on this thread, if any: it takes the demand as its `receive(_:)`'s return value.
    @usableFromInline
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        let sender = senders.absorb(demand)
        guard outbox.isActive else { return [] }
        guard let sender else { return upstreams.request(demand) }
        return upstreams.request(demand, except: sender)
    }

    /// Upstream `index` sent a value.
    @usableFromInline
    mutating func received(_ value: Any, at index: Int) -> Effects {
        guard outbox.isActive, !upstreams.isEnded(at: index) else { return Effects() }
        queues[index].append(value)
        // Tuples form eagerly, so before this value at least one queue was empty: at most one tuple forms now.
        guard queues.allSatisfy({ !$0.isEmpty }) else {
            guard finishRule == .whenEveryUpstreamFinishedOrAValueCannotPair,
                queues.indices.allSatisfy({ $0 == index || upstreams.isEnded(at: $0) })
            else { return Effects() }
            // RxSwift's collection zip: this value can never be paired (every other upstream finished, one of them
            // with nothing left), so the zip finishes, after the tuples already formed.
            var effects = finish()
            effects.startForwarding = outbox.claimForwarding()
            return effects
        }
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
        let finished = upstreams.end(at: index)
        var effects = finishIfExhausted()
        if let finished {
            effects.release.append(finished)
        }
        effects.startForwarding = outbox.claimForwarding()
        return effects
    }

    // Combine's rule: no tuple can form once a finished upstream has no unpaired value left: the zip finishes (after
    // the tuples already formed) and the other upstreams are cancelled; their unpaired values can never be paired.
    // RxSwift's: the zip finishes once every upstream finished (the others keep sending, their values unpaired).
    private mutating func finishIfExhausted() -> Effects {
        switch finishRule {
        case .whenAnUpstreamRunsOut:
            guard queues.indices.contains(where: { upstreams.isEnded(at: $0) && queues[$0].isEmpty }) else {
                return Effects()
            }
        case .whenEveryUpstreamFinished, .whenEveryUpstreamFinishedOrAValueCannotPair:
            guard queues.indices.allSatisfy({ upstreams.isEnded(at: $0) }) else { return Effects() }
        }
        return finish()
    }

    private mutating func finish() -> Effects {
        outbox.finish()
        var effects = Effects()
        effects.cancel = upstreams.endAll()
        effects.release = takeQueuedValues()
        return effects
    }

    /// Upstream `index` failed: ends the zip. Returns what to cancel (every upstream) and release, or nil if it had
    /// already ended or was finishing (the first completion wins).
    @usableFromInline
    mutating func failed(at index: Int) -> FanInEnding? {
        guard outbox.isActive else { return nil }
        // As in Combine, every upstream subscription is cancelled, the failed one's too (cancelling a finished
        // subscription does nothing).
        return end()
    }

    /// The downstream cancelled: ends the zip. Returns what to cancel and release, or nil if it had already ended.
    @usableFromInline
    mutating func cancelled() -> FanInEnding? {
        if outbox.isEnded { return nil }
        return end()
    }

    private mutating func end() -> FanInEnding {
        let cancel = upstreams.endAll()
        var release = takeQueuedValues()
        release.append(contentsOf: outbox.end())
        return FanInEnding(cancel: cancel, released: release)
    }

    /// The forwarder takes the next formed tuple, or `.finish`, or gives up forwarding.
    @usableFromInline
    mutating func nextToForward() -> CombiningForward {
        outbox.nextToForward()
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
