extension Publisher {
    /// Republishes all elements that match a provided error-throwing closure.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 0, 4].publisher
    ///     .tryFilter { value in
    ///         guard value != 0 else { throw ZeroValue() }
    ///         return value.isMultiple(of: 2)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 2, then failure
    /// ```
    ///
    /// **Demand:** passed through; each value filtered out asks the upstream for one more in its place.
    /// **Thread safety:** the closure runs on the thread that delivers each upstream value, with no lock held;
    /// `request`/`cancel` may be called from any thread; after a throw the upstream is cancelled exactly once and
    /// nothing more reaches the subscriber.
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool)
        -> Publishers.TryFilter<Self>
    {
        return Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// A publisher that republishes all elements that match a provided error-throwing closure.
    ///
    /// **Demand:** see ``Publisher/tryFilter(_:)``.
    /// **Thread safety:** see ``Publisher/tryFilter(_:)``.
    public struct TryFilter<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure that indicates whether to republish an element.
        public let isIncluded: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            let isIncluded = self.isIncluded
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryFilter", behavior: .strict, mirror: .downstreamOnly,
                    tryStep: { value in
                        try isIncluded(value) ? .emit(value) : .skip
                    }))
        }
    }
}

extension Publishers.Filter {
    /// Fuses a filter followed by a throwing filter into one throwing stage.
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool)
        -> Publishers.TryFilter<Upstream>
    {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}

extension Publishers.TryFilter {
    /// Fuses a throwing filter followed by a filter into one throwing stage.
    public func filter(_ isIncluded: @escaping (Output) -> Bool)
        -> Publishers.TryFilter<Upstream>
    {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }

    /// Fuses two throwing filters into one throwing stage.
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool)
        -> Publishers.TryFilter<Upstream>
    {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}
