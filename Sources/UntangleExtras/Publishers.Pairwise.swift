import Untangle

extension Publisher {
    /// Pairs each value with the one before it (the first value only starts the first pair).
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher.pairwise().sink { print($0) }   // (1, 2), (2, 3)
    /// ```
    ///
    /// **Demand:** one upstream value per pair; the first value, which completes no pair, is replaced by asking
    /// upstream for one more.
    /// **Thread safety:** `request`/`cancel` from any thread; the pair is formed on the delivering thread.
    public func pairwise() -> Publishers.Pairwise<Self> {
        Publishers.Pairwise(upstream: self)
    }
}

extension Publishers {
    /// A publisher pairing each upstream value with the previous one; see `pairwise()`. A step operator: it
    /// decides value by value on the core's step skeleton (`StepSubscription`), as `removeDuplicates` does.
    ///
    /// ```swift
    /// let pairs: Publishers.Pairwise<Publishers.Sequence<[Int], Never>> = [1, 2, 3].publisher.pairwise()
    /// ```
    ///
    /// **Demand:** see ``Publisher/pairwise()``.
    /// **Thread safety:** see ``Publisher/pairwise()``.
    public struct Pairwise<Upstream: Publisher>: Publisher {
        /// The previous value and the current one.
        public typealias Output = (Upstream.Output, Upstream.Output)
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are paired.
        public let upstream: Upstream

        /// Creates the operator.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes `subscriber` through the operator.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // The previous value is touched only by the upstream's serialized values: no lock.
            let previous = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "Pairwise",
                    step: { value in
                        defer { previous.value = value }
                        guard let before = previous.value else { return .skip }
                        return .emit((before, value))
                    },
                    completion: { $0 }))
        }
    }
}
