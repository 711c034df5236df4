extension Publisher where Output: Comparable {
    /// Publishes the minimum value received from the upstream publisher, after it finishes.
    ///
    /// ```swift
    /// let cancellable = [3, 1, 2].publisher
    ///     .min()
    ///     .sink { print($0) }   // 1
    /// ```
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); the value is delivered when the upstream finishes if the downstream has requested, else on its
    /// first request. An upstream that finishes without values gives a bare completion, which also waits for the
    /// first request; a failure is forwarded at once.
    /// **Thread safety:** `request`/`cancel` may be called from any thread, also while the upstream completes; the
    /// value goes downstream exactly once; a subscriber that cancels while receiving it gets no `.finished`.
    public func min() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: >)
    }

    /// Publishes the maximum value received from the upstream publisher, after it finishes.
    ///
    /// ```swift
    /// let cancellable = [0, 10, 5].publisher
    ///     .max()
    ///     .sink { print($0) }   // 10
    /// ```
    ///
    /// **Demand:** as ``Publisher/min()``.
    /// **Thread safety:** as ``Publisher/min()``.
    public func max() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: <)
    }
}

extension Publisher {
    /// Publishes the minimum value received from the upstream publisher, after it finishes, using the closure to
    /// order the items.
    ///
    /// ```swift
    /// let cancellable = ["bb", "a", "ccc"].publisher
    ///     .min { $0.count < $1.count }
    ///     .sink { print($0) }   // "a"
    /// ```
    ///
    /// **Demand:** as ``Publisher/min()``.
    /// **Thread safety:** as ``Publisher/min()``; the closure runs on the thread that delivers each upstream value,
    /// with no lock held. Of equal elements, the first one received wins.
    public func min(by areInIncreasingOrder: @escaping (Output, Output) -> Bool)
        -> Publishers.Comparison<Self>
    {
        return Publishers.Comparison(upstream: self) { areInIncreasingOrder($1, $0) }
    }

    /// Publishes the minimum value received from the upstream publisher, using the provided error-throwing closure
    /// to order the items.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [3, 1, 2].publisher
    ///     .tryMin { a, b in
    ///         guard a != 2 && b != 2 else { throw Unorderable() }
    ///         return a < b
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(Unorderable())
    /// ```
    ///
    /// **Demand:** as ``Publisher/min()``.
    /// **Thread safety:** as ``Publisher/min(by:)``; after a throw nothing but the failure reaches the subscriber.
    public func tryMin(
        by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
    )
        -> Publishers.TryComparison<Self>
    {
        return Publishers.TryComparison(upstream: self) { try areInIncreasingOrder($1, $0) }
    }

    /// Publishes the maximum value received from the upstream publisher, using the provided ordering closure.
    ///
    /// ```swift
    /// let cancellable = ["bb", "a", "ccc"].publisher
    ///     .max { $0.count < $1.count }
    ///     .sink { print($0) }   // "ccc"
    /// ```
    ///
    /// **Demand:** as ``Publisher/min()``.
    /// **Thread safety:** as ``Publisher/min(by:)``.
    public func max(by areInIncreasingOrder: @escaping (Output, Output) -> Bool)
        -> Publishers.Comparison<Self>
    {
        return Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }

    /// Publishes the maximum value received from the upstream publisher, using the provided error-throwing closure
    /// to order the items.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [3, 1, 2].publisher
    ///     .tryMax { a, b in
    ///         guard a != 2 && b != 2 else { throw Unorderable() }
    ///         return a < b
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(Unorderable())
    /// ```
    ///
    /// **Demand:** as ``Publisher/min()``.
    /// **Thread safety:** as ``Publisher/tryMin(by:)``.
    public func tryMax(
        by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool
    )
        -> Publishers.TryComparison<Self>
    {
        return Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}

extension Publishers {
    /// A publisher that republishes items from another publisher only if each new item is in increasing order
    /// from the previously-published item: after the upstream finishes it publishes the greatest element by
    /// `areInIncreasingOrder` (min operators pass the reversed order).
    ///
    /// **Demand:** see ``Publisher/min()``.
    /// **Thread safety:** see ``Publisher/min(by:)``.
    public struct Comparison<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns true if they are in increasing order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let ordered = areInIncreasingOrder
            let best = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "Comparison", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    onValue: { value in
                        // A later element replaces the kept one only if strictly greater in the given order.
                        if let current = best.value, !ordered(current, value) { return .absorb }
                        best.value = value
                        return .absorb
                    },
                    onCompletion: { $0.reducerFinal(best.take(leaving: nil)) }))
        }
    }

    /// A publisher that republishes items from another publisher only if each new item is in increasing order
    /// from the previously-published item, and fails if the ordering logic throws an error.
    ///
    /// **Demand:** see ``Publisher/min()``.
    /// **Thread safety:** see ``Publisher/tryMin(by:)``.
    public struct TryComparison<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns true if they are in increasing order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(
            upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool
        ) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            let ordered = areInIncreasingOrder
            let best = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "TryComparison", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    tryOnValue: { value in
                        if let current = best.value, try !ordered(current, value) { return .absorb }
                        best.value = value
                        return .absorb
                    },
                    onCompletion: { $0.erasedReducerFinal(best.take(leaving: nil)) }))
        }
    }
}
