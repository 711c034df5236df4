import UntangleSync

extension Publisher {
    /// Republishes elements until another publisher emits an element, then finishes.
    ///
    /// ```swift
    /// let cancellable = ticks.prefix(untilOutputFrom: stopButtonTaps).sink { print($0) }
    /// ```
    ///
    /// The other publisher's completion (finished or failed) is ignored: only its first value ends the stream. The
    /// upstream is then cancelled (the other publisher's subscription is released, not cancelled, as in Combine).
    /// The upstream's completion cancels the other publisher.
    ///
    /// **Demand:** downstream requests pass straight to the upstream; the other publisher is asked for `.max(1)`.
    /// **Thread safety:** the two publishers may deliver on different threads; the downstream never sees the
    /// `.finished` caused by the other publisher while it is inside `receive(_:)` for an upstream value (it follows
    /// that call). `request`/`cancel` may be called from any thread; no library lock is held during callouts.
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that republishes elements until another publisher emits an element.
    ///
    /// ```swift
    /// let untilStop = Publishers.PrefixUntilOutput(upstream: ticks, other: stopButtonTaps)
    /// ```
    ///
    /// The other publisher is subscribed to first, then the upstream; the downstream receives its subscription when
    /// the upstream's arrives. If the other publisher emits before that, the downstream receives only `.finished`
    /// and the upstream is cancelled on arrival (as in Combine).
    ///
    /// **Demand:** downstream requests pass to the upstream; the other publisher is asked for `.max(1)`.
    /// **Thread safety:** see ``Publisher/prefix(untilOutputFrom:)``.
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// Another publisher, whose first output causes this publisher to finish.
        public let other: Other

        /// Creates a publisher that republishes elements until another publisher emits an element.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Subscribes to `other`, then to the upstream; the subscriber receives its subscription when the upstream's
        /// arrives.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            let subscription = PrefixUntilOutputSubscription<S, Other.Output, Other.Failure>(downstream: subscriber)
            other.subscribe(PrefixUntilOutputSubscription.Trigger(owner: subscription))
            upstream.subscribe(subscription)
        }
    }
}

/// The subscription of ``Publishers/PrefixUntilOutput``, and the subscriber it gives the upstream (as in Combine).
///
/// Like Combine's, it does not describe itself (no `description` or custom mirror).
///
/// **Demand:** see ``PrefixUntilOutputStateMachine``.
/// **Thread safety:** upstream and trigger may signal concurrently; decisions are made under the lock, callouts
/// after it. A trigger firing while an upstream value is being delivered leaves the `.finished` to the delivering
/// thread (see ``DownstreamTurn``), so the downstream never sees two signals at once.
private final class PrefixUntilOutputSubscription<Downstream: Subscriber, TriggerOutput, TriggerFailure: Error>:
    Subscriber, Subscription, @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state: LockedBox<PrefixUntilOutputStateMachine<Downstream>>

    init(downstream: Downstream) {
        state = LockedBox(tracking: PrefixUntilOutputStateMachine(downstream: downstream))
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        let upstream = state.withCriticalSection { $0.request() }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let (upstream, trigger, released) = state.withCriticalSection { $0.cancelled() }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) cancelling")
        upstream?.cancel()
        trigger?.cancel()
        withExtendedLifetime(released) {}
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
        guard let downstream = state.withCriticalSection({ $0.upstreamSubscribed(subscription, on: .current) })
        else {
            CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) cancelling a subscription it cannot use")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) passing on its subscription")
        downstream.receive(subscription: self)
        deliverQueuedCompletions()
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = state.withCriticalSection({ $0.valueReceived(on: .current) }) else { return .none }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) delivering a value")
        let more = downstream.receive(input)
        deliverQueuedCompletions()
        return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (trigger, deliver, released) = state.withCriticalSection {
            $0.upstreamCompleted(completion, on: .current)
        }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) completing")
        trigger?.cancel()
        if let downstream = deliver {
            downstream.receive(completion: completion)
            deliverQueuedCompletions()
        }
    }

    // MARK: Trigger

    fileprivate func triggerSubscribed(_ subscription: Subscription) {
        let accepted = state.withCriticalSection { $0.triggerSubscribed(subscription) }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) requesting from the trigger")
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()
        }
    }

    fileprivate func triggerFired() {
        guard
            let (upstream, deliver, subscribeFirst, released) = state.withCriticalSection({
                $0.triggerFired(on: .current)
            })
        else { return }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) cancelling upstream")
        upstream?.cancel()
        if let downstream = deliver {
            if subscribeFirst {
                downstream.receive(subscription: self)
            }
            downstream.receive(completion: .finished)
            deliverQueuedCompletions()
        }
    }

    fileprivate func triggerCompleted() {
        let released = state.withCriticalSection { $0.triggerCompleted() }
        withExtendedLifetime(released) {}
    }

    /// Gives the turn back after a callout, delivering first what other threads queued meanwhile.
    private func deliverQueuedCompletions() {
        while true {
            switch state.withCriticalSection({ $0.leave() }) {
            case .deliver(let downstream, let completion):
                CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) completing")
                downstream.receive(completion: completion)
            case .done(let released):
                withExtendedLifetime(released) {}
                return
            }
        }
    }

    /// The subscriber given to the other publisher; it shares the subscription's combine identifier.
    struct Trigger: Subscriber {
        typealias Input = TriggerOutput
        typealias Failure = TriggerFailure

        let owner: PrefixUntilOutputSubscription

        var combineIdentifier: CombineIdentifier { owner.combineIdentifier }

        func receive(subscription: Subscription) { owner.triggerSubscribed(subscription) }

        func receive(_ input: TriggerOutput) -> Subscribers.Demand {
            owner.triggerFired()
            return .none
        }

        func receive(completion: Subscribers.Completion<TriggerFailure>) { owner.triggerCompleted() }
    }
}
