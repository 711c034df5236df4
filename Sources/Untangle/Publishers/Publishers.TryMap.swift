extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided error-throwing closure.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the thrown error.
    ///
    /// ```swift
    /// let cancellable = ["1", "x"].publisher
    ///     .tryMap { text -> Int in
    ///         guard let number = Int(text) else { throw ParseError() }
    ///         return number
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, then failure
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** the closure runs on the thread that delivers each upstream value, with no lock held;
    /// `request`/`cancel` may be called from any thread; after a throw the upstream is cancelled exactly once and
    /// nothing more reaches the subscriber.
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T)
        -> Publishers.TryMap<Self, T>
    {
        return Publishers.TryMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided error-throwing closure.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/tryMap(_:)``.
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) throws -> Output

        /// Creates the publisher.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            let transform = self.transform
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryMap", behavior: .valuesOnly,
                    tryStep: { value in
                        .emit(try transform(value))
                    }))
        }
    }
}

extension Publishers.TryMap {
    /// Fuses a throwing map followed by a map into one throwing stage.
    public func map<T>(_ transform: @escaping (Output) -> T)
        -> Publishers.TryMap<Upstream, T>
    {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
    }

    /// Fuses two throwing maps into one stage.
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T)
        -> Publishers.TryMap<Upstream, T>
    {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
    }
}
