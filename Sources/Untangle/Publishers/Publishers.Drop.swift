import UntangleSync

extension Publisher {
    /// Omits the specified number of elements before republishing subsequent elements.
    ///
    /// ```swift
    /// let cancellable = (1...5).publisher
    ///     .dropFirst(2)
    ///     .sink { print($0) }   // 3, 4, 5
    /// ```
    ///
    /// A negative count is a programming error and stops the program when a subscriber attaches.
    ///
    /// The subscriber gets its subscription before the upstream is subscribed to, as in Combine.
    ///
    /// **Demand:** what the downstream requests before the upstream's subscription arrives is added up; when it
    /// arrives, the operator asks the upstream for that plus `count` (the elements it drops) in one request.
    /// Later downstream requests pass upstream unchanged.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; the upstream is cancelled at most once,
    /// and an upstream subscription that arrives after `cancel` is cancelled.
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}

extension Publishers {
    /// A publisher that omits a specified number of elements before republishing later elements.
    ///
    /// **Demand:** see ``Publisher/dropFirst(_:)``.
    /// **Thread safety:** see ``Publisher/dropFirst(_:)``.
    public struct Drop<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// The number of elements to drop.
        public let count: Int

        /// Creates the publisher. A negative count stops the program when a subscriber attaches.
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber: it gets its subscription first, then the operator subscribes to the upstream.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            precondition(count >= 0, "dropFirst(_:) needs a non-negative count, got \(count)")
            let inner = DropSubscription(downstream: subscriber, count: count)
            subscriber.receive(subscription: inner)
            upstream.subscribe(inner)
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

// The downstream holds this subscription before the upstream's arrives (as in Combine), so requests made meanwhile
// are added up and asked for, with the `count` dropped elements, when it arrives. A dropped element gives no demand
// back: it was part of that request.
private final class DropSubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    enum Upstream {
        /// No upstream subscription yet; the downstream's requests so far.
        case awaiting(Subscribers.Demand)
        case subscribed(Subscription)
        case ended
    }

    struct State {
        var upstream = Upstream.awaiting(.none)
        /// Released on cancel and with the completion, so the subscription never keeps its subscriber alive.
        var downstream: Downstream?

        /// Ends everything; returns the upstream subscription to cancel and the downstream to release (or to
        /// complete) after unlocking.
        mutating func end() -> (Subscription?, Downstream?) {
            defer {
                upstream = .ended
                downstream = nil
            }
            if case .subscribed(let subscription) = upstream {
                return (subscription, downstream)
            }
            return (nil, downstream)
        }
    }

    let state: LockedBox<State>
    let count: Int
    /// Elements still to drop, and whether the upstream completed: only touched on the serialized upstream path.
    @exclusivity(unchecked) var remaining: Int
    @exclusivity(unchecked) var ended = false

    init(downstream: Downstream, count: Int) {
        state = LockedBox(tracking: State(downstream: downstream))
        self.count = count
        self.remaining = count
    }

    func receive(subscription: Subscription) {
        let pending = state.withCriticalSection { state -> Subscribers.Demand? in
            guard case .awaiting(let pending) = state.upstream, state.downstream != nil else { return nil }
            state.upstream = .subscribed(subscription)
            return pending
        }
        guard let pending else {
            CalloutCheck.assertNoLockHeld("dropFirst refusing a subscription")
            subscription.cancel()
            return
        }
        let demand = pending + count
        guard demand > .none else { return }
        CalloutCheck.assertNoLockHeld("dropFirst requesting upstream")
        subscription.request(demand)
    }

    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        guard !ended else { return .none }
        if remaining > 0 {
            remaining -= 1
            return .none
        }
        guard let downstream = state.withCriticalSection({ $0.downstream }) else { return .none }
        CalloutCheck.assertNoLockHeld("dropFirst passing on a value")
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        guard !ended else { return }
        ended = true
        let (_, downstream) = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("dropFirst passing on a completion")
        downstream?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let upstream = state.withCriticalSection { state -> Subscription? in
            switch state.upstream {
            case .awaiting(let pending):
                state.upstream = .awaiting(pending + demand)
                return nil
            case .subscribed(let subscription):
                return subscription
            case .ended:
                return nil
            }
        }
        guard let upstream else { return }
        CalloutCheck.assertNoLockHeld("dropFirst requesting upstream")
        upstream.request(demand)
    }

    func cancel() {
        let (upstream, downstream) = state.withCriticalSection { $0.end() }
        withExtendedLifetime(downstream) {}
        CalloutCheck.assertNoLockHeld("dropFirst cancelling upstream")
        upstream?.cancel()
    }

    var description: String { "Drop" }

    var playgroundDescription: Any { description }

    var customMirror: Mirror { Mirror(self, children: []) }
}
