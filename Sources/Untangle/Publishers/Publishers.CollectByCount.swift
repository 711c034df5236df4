import UntangleSync

extension Publisher {
    /// Collects up to the specified number of elements, and then emits a single array of the collection.
    ///
    /// If the upstream finishes before the buffer is full, the partial array is published, then the publisher
    /// finishes. If the upstream fails, the buffered elements are discarded and the failure is forwarded. A count
    /// below 1 is a programming error and stops the program.
    ///
    /// ```swift
    /// let cancellable = (0...4).publisher
    ///     .collect(2)
    ///     .sink { print($0) }   // [0, 1], [2, 3], [4]
    /// ```
    ///
    /// **Demand:** a downstream request for `n` arrays asks the upstream for `n * count` elements; demand returned
    /// from receiving an array is multiplied the same way.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; once `cancel()` returns nothing more is
    /// delivered (a cancel made while receiving the partial array keeps the `.finished` from the subscriber) and the
    /// subscriber is released; it is released after the completion too. As in Combine, a
    /// `cancel()` before the upstream's subscription arrived makes that subscription be ignored.
    public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
        Publishers.CollectByCount(upstream: self, count: count)
    }
}

extension Publishers {
    /// A publisher that buffers a maximum number of items.
    ///
    /// **Demand:** see ``Publisher/collect(_:)``.
    /// **Thread safety:** see ``Publisher/collect(_:)``.
    public struct CollectByCount<Upstream: Publisher>: Publisher {
        /// Arrays of up to `count` elements.
        public typealias Output = [Upstream.Output]
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// The maximum number of received elements to buffer before publishing.
        public let count: Int

        /// Creates a publisher that buffers a maximum number of items. A count below 1 stops the program.
        public init(upstream: Upstream, count: Int) {
            precondition(count > 0, "collect(_:) needs a count of at least 1, got \(count)")
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, S.Input == [Upstream.Output] {
            upstream.subscribe(CollectByCountSubscription(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {}

/// The subscriber `collect(_:)` gives its upstream and the subscription it gives its downstream.
///
/// One lock guards the phase (upstream subscription, downstream reference) and the partial array, so `request`,
/// `cancel` and the reflection (from any thread) see a consistent state; the subscriber is called with no lock held.
///
/// **Demand:** see ``Publisher/collect(_:)``.
/// **Thread safety:** see ``Publisher/collect(_:)``.
private final class CollectByCountSubscription<Element, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == [Element] {
    // @unchecked Sendable: all mutable state is in `state`, a LockedBox.
    typealias Input = Element
    typealias Failure = Downstream.Failure

    enum Phase {
        case awaiting(Downstream)
        case subscribed(Subscription, Downstream)
        /// The upstream finished and the last, partial array is going downstream; the `.finished` follows unless
        /// the downstream cancels while receiving it (a cancel moves the phase on, taking the subscriber).
        case finishing(Downstream)
        /// The upstream completed: the subscriber was released (Combine keeps it, and passes a second completion on;
        /// Untangle's contract releases the subscriber after the completion).
        case completed
        /// Cancelled before the upstream's subscription arrived: as in Combine, the late subscription is ignored.
        case cancelledEarly
        /// Cancelled: another subscription is cancelled.
        case cancelled
    }

    struct State {
        var phase: Phase
        var buffer: [Element] = []
    }

    private enum SubscriptionAction {
        case deliver(Downstream)
        case cancel
        case ignore
    }

    private let state: LockedBox<State>
    let count: Int

    init(downstream: Downstream, count: Int) {
        state = LockedBox(tracking: State(phase: .awaiting(downstream)))
        self.count = count
    }

    func receive(subscription: Subscription) {
        let action = state.withCriticalSection { state -> SubscriptionAction in
            switch state.phase {
            case .awaiting(let downstream):
                state.phase = .subscribed(subscription, downstream)
                return .deliver(downstream)
            case .cancelledEarly:
                return .ignore
            case .subscribed, .finishing, .completed, .cancelled:
                return .cancel
            }
        }
        switch action {
        case .ignore:
            return
        case .cancel:
            CalloutCheck.assertNoLockHeld("collect(_:) cancelling an unwanted upstream subscription")
            subscription.cancel()
        case .deliver(let downstream):
            CalloutCheck.assertNoLockHeld("collect(_:) passing on its subscription")
            downstream.receive(subscription: self)
        }
    }

    func receive(_ input: Element) -> Subscribers.Demand {
        let full = state.withCriticalSection { state -> ([Element], Downstream)? in
            guard case .subscribed(_, let downstream) = state.phase else { return nil }
            state.buffer.append(input)
            guard state.buffer.count == count else { return nil }
            defer { state.buffer = [] }
            return (state.buffer, downstream)
        }
        guard let (array, downstream) = full else { return .none }
        CalloutCheck.assertNoLockHeld("collect(_:) delivering an array")
        return downstream.receive(array) * count
    }

    // The partial array was requested: its elements came from a downstream request for one more array. As in Combine,
    // a completion is passed on even before the subscription arrived (the subscriber then gets no subscription).
    // While the partial array goes downstream the phase is `.finishing`: the `.finished` goes only if no `cancel()`
    // (made inside that `receive`, or from another thread) moved it on meanwhile.
    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        let deliver = state.withCriticalSection { state -> ([Element], Downstream)? in
            switch state.phase {
            case .awaiting(let downstream), .subscribed(_, let downstream):
                defer { state.buffer = [] }
                var rest: [Element] = []
                if case .finished = completion { rest = state.buffer }
                state.phase = rest.isEmpty ? .completed : .finishing(downstream)
                return (rest, downstream)
            case .finishing, .completed, .cancelledEarly, .cancelled:
                return nil
            }
        }
        guard let (rest, downstream) = deliver else { return }
        CalloutCheck.assertNoLockHeld("collect(_:) passing on the completion")
        guard !rest.isEmpty else {
            downstream.receive(completion: completion)
            return
        }
        _ = downstream.receive(rest)
        let finishing = state.withCriticalSection { state -> Downstream? in
            guard case .finishing(let downstream) = state.phase else { return nil }
            state.phase = .completed
            return downstream
        }
        CalloutCheck.assertNoLockHeld("collect(_:) finishing")
        finishing?.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let subscription = state.withCriticalSection { state -> Subscription? in
            guard case .subscribed(let subscription, _) = state.phase else { return nil }
            return subscription
        }
        guard let subscription else { return }
        CalloutCheck.assertNoLockHeld("collect(_:) requesting upstream")
        subscription.request(demand * count)
    }

    func cancel() {
        let previous = state.withCriticalSection { state -> (Phase, [Element]) in
            let previous = (state.phase, state.buffer)
            switch state.phase {
            case .awaiting: state.phase = .cancelledEarly
            case .subscribed, .finishing, .completed: state.phase = .cancelled
            case .cancelledEarly, .cancelled: return previous
            }
            state.buffer = []
            return previous
        }
        withExtendedLifetime(previous) {}
        guard case .subscribed(let subscription, _) = previous.0 else { return }
        CalloutCheck.assertNoLockHeld("collect(_:) cancelling upstream")
        subscription.cancel()
    }

    var description: String { "CollectByCount" }

    var customMirror: Mirror {
        let (downstream, subscription, buffer) = state.withCriticalSection {
            state -> (Downstream?, Subscription?, [Element]) in
            switch state.phase {
            case .awaiting(let downstream): return (downstream, nil, state.buffer)
            case .subscribed(let subscription, let downstream): return (downstream, subscription, state.buffer)
            case .finishing, .completed, .cancelledEarly, .cancelled: return (nil, nil, state.buffer)
            }
        }
        let children: [Mirror.Child] = [
            ("downstream", downstream as Any), ("upstreamSubscription", subscription as Any), ("buffer", buffer),
            ("count", count),
        ]
        return Mirror(self, children: children)
    }

    var playgroundDescription: Any { description }
}
