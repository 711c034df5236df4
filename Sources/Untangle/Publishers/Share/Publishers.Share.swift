extension Publisher {
    /// Shares the output of an upstream publisher with multiple subscribers.
    ///
    /// The returned publisher is a class: every subscriber of the same `Share` instance shares one upstream
    /// subscription, made when the first subscriber attaches and cancelled when the last one cancels. As in Combine,
    /// once the upstream has completed, later subscribers receive that completion (the upstream is not subscribed
    /// again until every subscriber has cancelled). Subscribers receive a "Multicast" subscription.
    ///
    /// ```swift
    /// let shared = expensiveRequest.share()
    /// let a = shared.sink(receiveCompletion: { _ in }, receiveValue: { print("a", $0) })
    /// let b = shared.sink(receiveCompletion: { _ in }, receiveValue: { print("b", $0) })   // same request
    /// ```
    ///
    /// **Demand:** the upstream is asked for `.unlimited`; values go through a `PassthroughSubject`, so a
    /// subscriber without outstanding demand misses the values sent meanwhile.
    /// **Thread safety:** subscribers may attach and cancel from any threads at once; however many first
    /// subscribers race, the upstream is subscribed exactly once per connection.
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}

extension Publishers {
    /// A publisher that shares the output of an upstream publisher with multiple subscribers.
    ///
    /// It is `multicast { PassthroughSubject() }` followed by `autoconnect()`: connected by the first subscriber,
    /// disconnected when the last one cancels. Two `Share`s are equal only if they are the same instance.
    ///
    /// ```swift
    /// let shared = Publishers.Share(upstream: source)
    /// ```
    ///
    /// **Demand:** see ``Publisher/share()``.
    /// **Thread safety:** see ``Publisher/share()``.
    public final class Share<Upstream: Publisher>: Publisher, Equatable {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream

        private let shared: Publishers.Autoconnect<Publishers.Multicast<Upstream, PassthroughSubject<Output, Failure>>>

        /// Creates a publisher that shares the output of an upstream publisher with multiple subscribers.
        public init(upstream: Upstream) {
            self.upstream = upstream
            shared = Publishers.Autoconnect(upstream: Publishers.Multicast(upstream: upstream) { PassthroughSubject() })
        }

        /// Attaches the subscriber, connecting the upstream if it is the first.
        public final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            shared.subscribe(subscriber)
        }

        /// Returns whether the two publishers are the same instance.
        public static func == (lhs: Publishers.Share<Upstream>, rhs: Publishers.Share<Upstream>) -> Bool {
            lhs === rhs
        }
    }
}

// Every entry point is thread-safe (the state lives behind the autoconnect's and the multicast's locks).
extension Publishers.Share: @unchecked Sendable {}
