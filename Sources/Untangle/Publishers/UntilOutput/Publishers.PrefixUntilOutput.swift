import UntangleSync

extension Publisher {
    /// Republishes elements until another publisher emits an element, then finishes.
    ///
    /// ```swift
    /// let cancellable = ticks.prefix(untilOutputFrom: stopButtonTaps).sink { print($0) }
    /// ```
    ///
    /// The other publisher's completion (finished or failed) is ignored: only its first value ends the stream. Its
    /// subscription is cancelled after that value, and the upstream is cancelled too.
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
    /// The downstream receives its subscription first; then the other publisher is subscribed to, then the upstream.
    /// If the other publisher emits before the upstream subscribes, the upstream is cancelled on arrival.
    ///
    /// **Demand:** downstream requests pass to the upstream (requests made before it subscribes are forwarded when it
    /// does); the other publisher is asked for `.max(1)` and cancelled after its first value.
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

        /// Attaches the subscriber, then subscribes to `other` and to the upstream.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            let subscription = PrefixUntilOutputSubscription<S, Other.Output, Other.Failure>(downstream: subscriber)
            CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) passing on its subscription")
            subscriber.receive(subscription: subscription)
            other.subscribe(PrefixUntilOutputSubscription.Trigger(owner: subscription))
            upstream.subscribe(PrefixUntilOutputSubscription.Source(owner: subscription))
        }
    }
}

/// The subscription of ``Publishers/PrefixUntilOutput``.
///
/// **Demand:** see ``PrefixUntilOutputStateMachine``.
/// **Thread safety:** upstream and trigger may signal concurrently; decisions are made under the lock, callouts
/// after it. A trigger firing while an upstream value is being delivered leaves the `.finished` to the delivering
/// thread, so the downstream never sees two signals at once.
private final class PrefixUntilOutputSubscription<Downstream: Subscriber, TriggerOutput, TriggerFailure: Error>:
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    private let state: LockedBox<PrefixUntilOutputStateMachine<Downstream>>

    init(downstream: Downstream) {
        state = LockedBox(tracking: PrefixUntilOutputStateMachine(downstream: downstream))
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let upstream = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let (subscriptions, released) = state.withCriticalSection { $0.cancelled() }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) cancelling")
        for subscription in subscriptions {
            subscription.cancel()
        }
        withExtendedLifetime(released) {}
    }

    fileprivate func upstreamSubscribed(_ subscription: Subscription) {
        let demand = state.withCriticalSection { $0.upstreamSubscribed(subscription) }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) requesting upstream")
        guard let demand else {
            subscription.cancel()
            return
        }
        if demand > .none {
            subscription.request(demand)
        }
    }

    fileprivate func upstreamReceived(_ value: Downstream.Input) -> Subscribers.Demand {
        guard let downstream = state.withCriticalSection({ $0.willDeliverValue() }) else { return .none }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) delivering a value")
        let more = downstream.receive(value)
        if let finishing = state.withCriticalSection({ $0.didDeliverValue() }) {
            // The trigger fired during the delivery (from another thread, or from inside it): finish now.
            finishing.receive(completion: .finished)
            return .none
        }
        return more
    }

    fileprivate func upstreamCompleted(_ completion: Subscribers.Completion<Downstream.Failure>) {
        guard let (downstream, trigger) = state.withCriticalSection({ $0.upstreamCompleted() }) else { return }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) completing")
        trigger?.cancel()
        downstream.receive(completion: completion)
    }

    fileprivate func triggerSubscribed(_ subscription: Subscription) {
        let accepted = state.withCriticalSection { $0.triggerSubscribed(subscription) }
        CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) requesting from the trigger")
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()
        }
    }

    fileprivate func triggerReceived() {
        switch state.withCriticalSection({ $0.triggered() }) {
        case .ignore:
            break
        case .cancelOnly(let subscriptions):
            CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) cancelling")
            for subscription in subscriptions {
                subscription.cancel()
            }
        case .finishNow(let downstream, let subscriptions):
            CalloutCheck.assertNoLockHeld("prefix(untilOutputFrom:) finishing")
            for subscription in subscriptions {
                subscription.cancel()
            }
            downstream.receive(completion: .finished)
        }
    }

    fileprivate func triggerCompleted() {
        let released = state.withCriticalSection { $0.triggerCompleted() }
        withExtendedLifetime(released) {}
    }

    var description: String { "PrefixUntilOutput" }

    /// The subscriber given to the upstream.
    struct Source: Subscriber, CustomStringConvertible {
        typealias Input = Downstream.Input
        typealias Failure = Downstream.Failure

        let owner: PrefixUntilOutputSubscription
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) { owner.upstreamSubscribed(subscription) }
        func receive(_ input: Input) -> Subscribers.Demand { owner.upstreamReceived(input) }
        func receive(completion: Subscribers.Completion<Failure>) { owner.upstreamCompleted(completion) }
        var description: String { "PrefixUntilOutput" }
    }

    /// The subscriber given to the other publisher.
    struct Trigger: Subscriber, CustomStringConvertible {
        typealias Input = TriggerOutput
        typealias Failure = TriggerFailure

        let owner: PrefixUntilOutputSubscription
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) { owner.triggerSubscribed(subscription) }

        func receive(_ input: TriggerOutput) -> Subscribers.Demand {
            owner.triggerReceived()
            return .none
        }

        func receive(completion: Subscribers.Completion<TriggerFailure>) { owner.triggerCompleted() }
        var description: String { "PrefixUntilOutput" }
    }
}
