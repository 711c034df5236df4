import UntangleSync

extension Publisher {
    /// Ignores elements from the upstream publisher until it receives an element from a second publisher.
    ///
    /// ```swift
    /// let cancellable = readings.drop(untilOutputFrom: calibrationDone).sink { print($0) }
    /// ```
    ///
    /// The second publisher is asked for one value; after it, its subscription is released (not cancelled) and
    /// upstream elements pass through. If the second publisher completes before publishing a value, its completion
    /// (finished or failure) is published and the upstream is cancelled. The upstream's completion is published
    /// as is; it does not cancel the second publisher. These are Combine's rules.
    ///
    /// **Demand:** downstream requests pass straight to the upstream; elements dropped before the second publisher
    /// emits use up the demand that allowed them (as in Apple's Combine), and a dropped element the downstream did
    /// not request stops the program, as in Combine.
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
            upstream.subscribe(subscription)
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

/// The subscription of ``Publishers/DropUntilOutput``, and the subscriber it gives the upstream (as in Combine).
///
///
/// **Demand:** see ``DropUntilOutputStateMachine``.
/// **Thread safety:** upstream and trigger may signal concurrently; decisions are made under the lock, callouts
/// after it, and the downstream is called by one source at a time (see ``DownstreamTurn``).
private final class DropUntilOutputSubscription<Downstream: Subscriber, TriggerOutput>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state: LockedBox<DropUntilOutputStateMachine<Downstream>>

    init(downstream: Downstream) {
        state = LockedBox(tracking: DropUntilOutputStateMachine(downstream: downstream))
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        let upstream = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let (upstream, trigger, released) = state.withCriticalSection { $0.cancelled() }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) cancelling")
        upstream?.cancel()
        trigger?.cancel()
        withExtendedLifetime(released) {}
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
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

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = state.withCriticalSection({ $0.valueReceived(on: .current) }) else { return .none }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) delivering a value")
        let more = downstream.receive(input)
        deliverQueuedCompletions()
        return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let downstream = state.withCriticalSection({ $0.upstreamCompleted(completion, on: .current) })
        else { return }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) completing")
        downstream.receive(completion: completion)
        deliverQueuedCompletions()
    }

    // MARK: Trigger

    fileprivate func triggerSubscribed(_ subscription: Subscription) {
        let accepted = state.withCriticalSection { $0.triggerSubscribed(subscription) }
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) requesting from the trigger")
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()
        }
    }

    fileprivate func triggerFired() {
        let released = state.withCriticalSection { $0.triggerFired() }
        withExtendedLifetime(released) {}
    }

    fileprivate func triggerCompleted(_ completion: Subscribers.Completion<Failure>) {
        let (upstream, deliver, released) = state.withCriticalSection {
            $0.triggerCompleted(completion, on: .current)
        }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) completing")
        upstream?.cancel()
        if let downstream = deliver {
            downstream.receive(completion: completion)
            deliverQueuedCompletions()
        }
    }

    /// Gives the turn back after a callout, delivering first what other threads queued meanwhile.
    private func deliverQueuedCompletions() {
        while true {
            switch state.withCriticalSection({ $0.leave() }) {
            case .deliver(let downstream, let completion):
                CalloutCheck.assertNoLockHeld("drop(untilOutputFrom:) completing")
                downstream.receive(completion: completion)
            case .done(let released):
                withExtendedLifetime(released) {}
                return
            }
        }
    }

    var description: String { "DropUntilOutput" }
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    var playgroundDescription: Any { description }

    /// The subscriber given to the other publisher; it shares the subscription's combine identifier.
    struct Trigger: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
        typealias Input = TriggerOutput
        typealias Failure = Downstream.Failure

        let owner: DropUntilOutputSubscription

        var combineIdentifier: CombineIdentifier { owner.combineIdentifier }

        func receive(subscription: Subscription) { owner.triggerSubscribed(subscription) }

        func receive(_ input: TriggerOutput) -> Subscribers.Demand {
            owner.triggerFired()
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) { owner.triggerCompleted(completion) }
        var description: String { "DropUntilOutput" }
        var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
        var playgroundDescription: Any { description }
    }
}
