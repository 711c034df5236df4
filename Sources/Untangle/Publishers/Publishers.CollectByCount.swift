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
    /// **Thread safety:** `request`/`cancel` may be called from any thread; the buffer is only touched on the
    /// thread that delivers upstream signals.
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

private final class CollectByCountSubscription<Element, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, @unchecked Sendable
where Downstream.Input == [Element] {
    typealias Input = Element
    typealias Failure = Downstream.Failure

    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case ended
    }

    /// Released on cancel and with the completion, so the subscription never keeps its subscriber alive.
    let downstreamBox: LockedBox<Downstream?>
    let upstream = LockedBox(tracking: Upstream.awaiting)
    let count: Int
    /// The partial array and the completion flag: only touched on the serialized upstream signal path.
    var buffer: [Element] = []
    var ended = false

    init(downstream: Downstream, count: Int) {
        downstreamBox = LockedBox(tracking: downstream)
        self.count = count
        buffer.reserveCapacity(count)
    }

    func receive(subscription: Subscription) {
        let accepted = upstream.withCriticalSection { state -> Bool in
            guard case .awaiting = state else { return false }
            state = .subscribed(subscription)
            return true
        }
        CalloutCheck.assertNoLockHeld("collect(_:) passing on its subscription")
        guard accepted, let downstream = downstreamBox.withCriticalSection({ $0 }) else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Element) -> Subscribers.Demand {
        guard !ended, let downstream = downstreamBox.withCriticalSection({ $0 }) else { return .none }
        buffer.append(input)
        guard buffer.count == count else { return .none }
        let full = buffer
        buffer = []
        buffer.reserveCapacity(count)
        return downstream.receive(full) * count
    }

    func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        guard !ended else { return }
        ended = true
        let released = upstream.withCriticalSection { state -> Upstream in
            defer { state = .ended }
            return state
        }
        withExtendedLifetime(released) {}
        guard let downstream = downstreamBox.withCriticalSection({ $0.take() }) else { return }
        let rest = buffer
        buffer = []
        // The partial array was requested: its elements came from a downstream request for one more array.
        if case .finished = completion, !rest.isEmpty { _ = downstream.receive(rest) }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        guard case .subscribed(let subscription) = upstream.withCriticalSection({ $0 }) else { return }
        CalloutCheck.assertNoLockHeld("collect(_:) requesting upstream")
        subscription.request(demand * count)
    }

    func cancel() {
        let previous = upstream.withCriticalSection { state -> Upstream in
            defer { state = .ended }
            return state
        }
        let released = downstreamBox.withCriticalSection { $0.take() }
        withExtendedLifetime(released) {}
        if case .subscribed(let subscription) = previous {
            CalloutCheck.assertNoLockHeld("collect(_:) cancelling upstream")
            subscription.cancel()
        }
    }

    var description: String { "CollectByCount" }
}
