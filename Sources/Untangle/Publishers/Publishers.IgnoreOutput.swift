extension Publisher {
    /// Ignores all upstream elements, but passes along the upstream publisher's completion state (finished or
    /// failed).
    ///
    /// ```swift
    /// let cancellable = (1...3).publisher
    ///     .ignoreOutput()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })   // finished
    /// ```
    ///
    /// **Demand:** it asks the upstream for `.unlimited` as soon as the downstream has its subscription, whatever
    /// the downstream requests (it never sends values, and a completion needs no demand).
    /// **Thread safety:** `request` (ignored) and `cancel` may be called from any thread.
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}

extension Publishers {
    /// A publisher that ignores all upstream elements, but passes along the upstream publisher's completion state.
    ///
    /// **Demand:** see ``Publisher/ignoreOutput()``.
    /// **Thread safety:** see ``Publisher/ignoreOutput()``.
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        /// It never publishes a value.
        public typealias Output = Never
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, Upstream.Failure == S.Failure {
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "IgnoreOutput", policy: .unlimitedAtSubscription,
                    onValue: { _ in .absorb },
                    onCompletion: { (nil, $0) }))
        }
    }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}
