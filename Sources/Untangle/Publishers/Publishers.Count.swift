extension Publisher {
    /// Publishes the number of elements received from the upstream publisher.
    ///
    /// ```swift
    /// let cancellable = ["a", "b", "c"].publisher
    ///     .count()
    ///     .sink { print($0) }   // 3
    /// ```
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); the count is delivered when the upstream finishes if the downstream has requested, else on its
    /// first request.
    /// **Thread safety:** `request`/`cancel` may be called from any thread, also while the upstream completes; the
    /// count goes downstream exactly once; a subscriber that cancels while receiving it gets no `.finished`.
    public func count() -> Publishers.Count<Self> {
        Publishers.Count(upstream: self)
    }
}

extension Publishers {
    /// A publisher that publishes the number of elements received from the upstream publisher.
    ///
    /// **Demand:** see ``Publisher/count()``.
    /// **Thread safety:** see ``Publisher/count()``.
    public struct Count<Upstream: Publisher>: Publisher {
        /// The number of elements.
        public typealias Output = Int
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, Upstream.Failure == S.Failure {
            let count = OperatorVariable(0)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "Count", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: 0),
                    onValue: { _ in
                        count.value += 1
                        return .absorb
                    },
                    onCompletion: { $0.reducerFinal(count.value) }))
        }
    }
}

extension Publishers.Count: Equatable where Upstream: Equatable {}
