import UntangleSync

extension Publisher {
    /// Ignores elements from the upstream publisher until it receives an element from a second publisher.
    ///
    /// ```swift
    /// let cancellable = readings.drop(untilOutputFrom: calibrationDone).sink { print($0) }
    /// ```
    ///
    /// The second publisher is asked for one value; after it, its subscription is cancelled and upstream elements
    /// pass through. If the second publisher completes before publishing a value, nothing could ever pass: its
    /// completion (finished or failure) is published and the upstream is cancelled.
    ///
    /// **Demand:** downstream requests pass straight to the upstream; elements dropped before the second publisher
    /// emits use up the demand that allowed them (as in Apple's Combine).
    /// **Thread safety:** the two publishers may deliver on different threads; the downstream sees one signal at a
    /// time. `request`/`cancel` may be called from any thread; no library lock is held during callouts.
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
    where Failure == P.Failure {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that ignores elements from the upstream publisher until it receives an element from a second
    /// publisher.
    ///
    /// ```swift
    /// let afterCalibration = Publishers.DropUntilOutput(upstream: readings, other: calibrationDone)
    /// ```
    ///
    /// The downstream receives its subscription first; then the other publisher is subscribed to, then the upstream.
    ///
    /// **Demand:** see ``Publisher/drop(untilOutputFrom:)``; requests made before the upstream subscribes are
    /// forwarded when it does.
    /// **Thread safety:** see ``Publisher/drop(untilOutputFrom:)``.
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
    where Upstream.Failure == Other.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A publisher to monitor for its first emitted element.
        public let other: Other

        /// Creates a publisher that ignores elements from the upstream publisher until it receives an element from
        /// another publisher.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches the subscriber, then subscribes to `other` and to the upstream.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
            let subscription = DropUntilOutputSubscription<S, Other.Output>(downstream: subscriber)
            CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) passing on its subscription")
            subscriber.receive(subscription: subscription)
            other.subscribe(DropUntilOutputSubscription.Trigger(owner: subscription))
            upstream.subscribe(DropUntilOutputSubscription.Source(owner: subscription))
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

/// The subscription of ``Publishers/DropUntilOutput``.
///
/// **Demand:** see ``DropUntilOutputStateMachine``.
/// **Thread safety:** upstream and trigger may signal concurrently; decisions are made under the lock, callouts
/// after it.
private final class DropUntilOutputSubscription<Downstream: Subscriber, TriggerOutput>: Subscription,
    CustomStringConvertible, @unchecked Sendable
{
    private let state: LockedBox<DropUntilOutputStateMachine<Downstream>>

    init(downstream: Downstream) {
        state = LockedBox(tracking: DropUntilOutputStateMachine(downstream: downstream))
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let upstream = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let (subscriptions, released) = state.withCriticalSection { $0.cancelled() }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) cancelling")
        for subscription in subscriptions {
            subscription.cancel()
        }
        withExtendedLifetime(released) {}
    }

    fileprivate func upstreamSubscribed(_ subscription: Subscription) {
        let demand = state.withCriticalSection { $0.upstreamSubscribed(subscription) }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) requesting upstream")
        guard let demand else {
            subscription.cancel()
            return
        }
        if demand > .none {
            subscription.request(demand)
        }
    }

    fileprivate func upstreamReceived(_ value: Downstream.Input) -> Subscribers.Demand {
        guard let downstream = state.withCriticalSection({ $0.valueReceived() }) else { return .none }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) delivering a value")
        return downstream.receive(value)
    }

    fileprivate func completed(
        _ completion: Subscribers.Completion<Downstream.Failure>, byTrigger: Bool
    ) {
        let decision = state.withCriticalSection { byTrigger ? $0.triggerCompleted() : $0.upstreamCompleted() }
        guard let (downstream, other) = decision else { return }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) completing")
        other?.cancel()
        downstream.receive(completion: completion)
    }

    fileprivate func triggerSubscribed(_ subscription: Subscription) {
        let accepted = state.withCriticalSection { $0.triggerSubscribed(subscription) }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) requesting from the trigger")
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()
        }
    }

    fileprivate func triggerReceived() {
        let trigger = state.withCriticalSection { $0.triggered() }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) cancelling the trigger")
        trigger?.cancel()
    }

    var description: String { "DropUntilOutput" }

    /// The subscriber given to the upstream.
    struct Source: Subscriber, CustomStringConvertible {
        typealias Input = Downstream.Input
        typealias Failure = Downstream.Failure

        let owner: DropUntilOutputSubscription
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) { owner.upstreamSubscribed(subscription) }
        func receive(_ input: Input) -> Subscribers.Demand { owner.upstreamReceived(input) }
        func receive(completion: Subscribers.Completion<Failure>) { owner.completed(completion, byTrigger: false) }
        var description: String { "DropUntilOutput" }
    }

    /// The subscriber given to the other publisher.
    struct Trigger: Subscriber, CustomStringConvertible {
        typealias Input = TriggerOutput
        typealias Failure = Downstream.Failure

        let owner: DropUntilOutputSubscription
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) { owner.triggerSubscribed(subscription) }

        func receive(_ input: TriggerOutput) -> Subscribers.Demand {
            owner.triggerReceived()
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) { owner.completed(completion, byTrigger: true) }
        var description: String { "DropUntilOutput" }
    }
}
