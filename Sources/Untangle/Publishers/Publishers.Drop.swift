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
    /// A negative count is a programming error and stops the program.
    ///
    /// **Demand:** right after the downstream gets its subscription, it asks the upstream for `count` elements
    /// (the ones it drops); downstream requests then pass upstream unchanged.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; the upstream is cancelled at most once.
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

        /// Creates the publisher. A negative count stops the program.
        public init(upstream: Upstream, count: Int) {
            precondition(count >= 0, "dropFirst(_:) needs a non-negative count, got \(count)")
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(DropSubscription(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

// Like StepSubscription, but a dropped element gives no demand back: the `count` dropped elements were requested
// up front.
private final class DropSubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    @unchecked Sendable
{
    typealias Input = Downstream.Input
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
    /// Elements still to drop, and whether the upstream completed: only touched on the serialized upstream path.
    var remaining: Int
    var ended = false

    init(downstream: Downstream, count: Int) {
        downstreamBox = LockedBox(tracking: downstream)
        self.count = count
        self.remaining = count
    }

    func receive(subscription: Subscription) {
        let accepted = upstream.withCriticalSection { state -> Bool in
            guard case .awaiting = state else { return false }
            state = .subscribed(subscription)
            return true
        }
        CalloutCheck.assertNoLockHeld("dropFirst passing on its subscription")
        guard accepted, let downstream = downstreamBox.withCriticalSection({ $0 }) else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        // Asked only after the downstream has its subscription: a synchronous upstream may complete inside this
        // request, and the downstream must not see a completion before its subscription.
        guard count > 0, case .subscribed(let live) = upstream.withCriticalSection({ $0 }) else { return }
        CalloutCheck.assertNoLockHeld("dropFirst requesting the dropped elements")
        live.request(.max(count))
    }

    func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        guard !ended, let downstream = downstreamBox.withCriticalSection({ $0 }) else { return .none }
        if remaining > 0 {
            remaining -= 1
            return .none
        }
        return downstream.receive(input)
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
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        guard case .subscribed(let subscription) = upstream.withCriticalSection({ $0 }) else { return }
        CalloutCheck.assertNoLockHeld("dropFirst requesting upstream")
        subscription.request(demand)
    }

    func cancel() {
        let previous = upstream.withCriticalSection { state -> Upstream in
            defer { state = .ended }
            return state
        }
        let released = downstreamBox.withCriticalSection { $0.take() }
        withExtendedLifetime(released) {}
        if case .subscribed(let subscription) = previous {
            CalloutCheck.assertNoLockHeld("dropFirst cancelling upstream")
            subscription.cancel()
        }
    }

    var description: String { "Drop" }
}
