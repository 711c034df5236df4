extension Publisher {
    /// Republishes elements while a predicate closure indicates publishing should continue.
    ///
    /// On the first element that fails the predicate, the publisher cancels the upstream and finishes (that
    /// element is not published).
    ///
    /// ```swift
    /// let cancellable = [2, 4, 5, 6].publisher
    ///     .prefix { $0.isMultiple(of: 2) }
    ///     .sink { print($0) }   // 2, 4
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** the predicate runs on the thread that delivers each upstream value, with no lock held;
    /// `request`/`cancel` may be called from any thread; the upstream is cancelled exactly once.
    public func prefix(while predicate: @escaping (Output) -> Bool)
        -> Publishers.PrefixWhile<Self>
    {
        return Publishers.PrefixWhile(upstream: self, predicate: predicate)
    }

    /// Republishes elements while an error-throwing predicate closure indicates publishing should continue.
    ///
    /// If the predicate throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, -1, 3].publisher
    ///     .tryPrefix { value in
    ///         guard value >= 0 else { throw NegativeValue() }
    ///         return value < 3
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, 2, then failure
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as ``Publisher/prefix(while:)``; after a throw nothing more reaches the subscriber.
    public func tryPrefix(while predicate: @escaping (Output) throws -> Bool)
        -> Publishers.TryPrefixWhile<Self>
    {
        return Publishers.TryPrefixWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that republishes elements while a predicate closure indicates publishing should continue.
    ///
    /// **Demand:** see ``Publisher/prefix(while:)``.
    /// **Thread safety:** see ``Publisher/prefix(while:)``.
    public struct PrefixWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether publishing should continue.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let predicate = self.predicate
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "PrefixWhile", behavior: .strict, mirror: .downstreamOnly,
                    step: { predicate($0) ? .emit($0) : .finish },
                    completion: { $0 }))
        }
    }

    /// A publisher that republishes elements while an error-throwing predicate closure indicates publishing should
    /// continue.
    ///
    /// **Demand:** see ``Publisher/tryPrefix(while:)``.
    /// **Thread safety:** see ``Publisher/tryPrefix(while:)``.
    public struct TryPrefixWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the one the predicate threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether publishing should continue.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            let predicate = self.predicate
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryPrefixWhile", behavior: .strict,
                    mirror: .downstreamOnly,
                    tryStep: { value in
                        try predicate(value) ? .emit(value) : .finish
                    }))
        }
    }
}
