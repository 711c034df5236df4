import Untangle

extension Publisher {
    /// Pairs each value with its index, counted from 0 on each subscription: RxSwift's `enumerated()`.
    ///
    /// ```swift
    /// let cancellable = ["a", "b"].publisher.enumerated().sink { index, letter in print(index, letter) }
    /// // 0 a, 1 b
    /// ```
    ///
    /// **Demand:** passes straight through: one upstream value per indexed value.
    /// **Thread safety:** `request`/`cancel` from any thread; the index is counted on the delivering thread (the
    /// upstream's values are serialized).
    public func enumerated() -> Publishers.Enumerated<Self> {
        Publishers.Enumerated(upstream: self)
    }
}

extension Publishers {
    /// A publisher pairing each upstream value with its index; see `enumerated()`. A step operator on the core's
    /// step skeleton (`StepSubscription`), as `pairwise()` is.
    ///
    /// ```swift
    /// let indexed: Publishers.Enumerated<Publishers.Sequence<[String], Never>> = ["a", "b"].publisher.enumerated()
    /// ```
    ///
    /// **Demand:** see ``Publisher/enumerated()``.
    /// **Thread safety:** see ``Publisher/enumerated()``.
    public struct Enumerated<Upstream: Publisher>: Publisher {
        /// The value's index (from 0 on each subscription) and the value.
        public typealias Output = (index: Int, element: Upstream.Output)
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are indexed.
        public let upstream: Upstream

        /// Creates the operator.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes `subscriber` through the operator.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // The count is touched only by the upstream's serialized values: no lock. One count per subscription.
            let count = OperatorVariable<Int>(0)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "Enumerated",
                    step: { value in
                        defer { count.value += 1 }
                        return .emit((index: count.value, element: value))
                    },
                    completion: { $0 }))
        }
    }
}
