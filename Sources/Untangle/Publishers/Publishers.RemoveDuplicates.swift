extension Publisher where Output: Equatable {
    /// Publishes only elements that don't match the previous element.
    ///
    /// ```swift
    /// let cancellable = [1, 1, 2, 2, 1].publisher
    ///     .removeDuplicates()
    ///     .sink { print($0) }   // 1, 2, 1
    /// ```
    ///
    /// **Demand:** passed through; each duplicate dropped asks the upstream for one more value in its place.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; the comparison runs on the thread that
    /// delivers each upstream value, with no lock held.
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: ==)
    }
}

extension Publisher {
    /// Publishes only elements that don't match the previous element, as evaluated by a provided closure.
    ///
    /// The closure gets the previous element received (whether it was published or not) and the new one, and
    /// returns `true` if the new one is a duplicate to drop.
    ///
    /// ```swift
    /// let cancellable = ["a", "A", "b"].publisher
    ///     .removeDuplicates { $0.lowercased() == $1.lowercased() }
    ///     .sink { print($0) }   // "a", "b"
    /// ```
    ///
    /// **Demand:** as ``Publisher/removeDuplicates()``.
    /// **Thread safety:** as ``Publisher/removeDuplicates()``.
    public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool)
        -> Publishers.RemoveDuplicates<Self>
    {
        return Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }

    /// Publishes only elements that don't match the previous element, as evaluated by a provided error-throwing
    /// closure.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 1, -1].publisher
    ///     .tryRemoveDuplicates { previous, next in
    ///         guard next >= 0 else { throw NegativeValue() }
    ///         return previous == next
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, then failure
    /// ```
    ///
    /// **Demand:** as ``Publisher/removeDuplicates()``.
    /// **Thread safety:** as ``Publisher/removeDuplicates()``; after a throw the upstream is cancelled exactly once
    /// and nothing more reaches the subscriber.
    public func tryRemoveDuplicates(
        by predicate: @escaping (Output, Output) throws -> Bool
    )
        -> Publishers.TryRemoveDuplicates<Self>
    {
        return Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that publishes only elements that don't match the previous element.
    ///
    /// **Demand:** see ``Publisher/removeDuplicates(by:)``.
    /// **Thread safety:** see ``Publisher/removeDuplicates(by:)``.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure to evaluate whether two elements are equivalent, for purposes of filtering.
        public let predicate: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a publisher that publishes only elements that don't match the previous element, as evaluated by
        /// a provided closure.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let isDuplicate = predicate
            let previous = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "RemoveDuplicates", behavior: .strict,
                    mirror: .downstreamAndLastInput("last"),
                    step: { value in
                        defer { previous.value = value }
                        if let previous = previous.value, isDuplicate(previous, value) { return .skip }
                        return .emit(value)
                    },
                    completion: { $0 }))
        }
    }

    /// A publisher that publishes only elements that don't match the previous element, as evaluated by a provided
    /// error-throwing closure.
    ///
    /// **Demand:** see ``Publisher/tryRemoveDuplicates(by:)``.
    /// **Thread safety:** see ``Publisher/tryRemoveDuplicates(by:)``.
    public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure to evaluate whether two elements are equivalent, for purposes of filtering.
        public let predicate: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            let isDuplicate = predicate
            let previous = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryRemoveDuplicates", behavior: .strict,
                    mirror: .downstreamAndLastInput("last"),
                    tryStep: { value in
                        defer { previous.value = value }
                        if let previous = previous.value, try isDuplicate(previous, value) { return .skip }
                        return .emit(value)
                    }))
        }
    }
}
