extension Publisher {
    /// Calls a closure with each received element and publishes any returned optional that has a value.
    ///
    /// ```swift
    /// let cancellable = ["1", "x", "3"].publisher
    ///     .compactMap { Int($0) }
    ///     .sink { print($0) }   // 1, 3
    /// ```
    ///
    /// **Demand:** passed through (the downstream's subscription is the upstream's own); each `nil` result returns
    /// `.max(1)` to the upstream, one more value in its place.
    /// **Thread safety:** as the upstream; the closure runs on the thread that delivers each upstream value, with no
    /// lock held.
    public func compactMap<T>(_ transform: @escaping (Output) -> T?)
        -> Publishers.CompactMap<Self, T>
    {
        return Publishers.CompactMap(upstream: self, transform: transform)
    }

    /// Calls an error-throwing closure with each received element and publishes any returned optional that has a
    /// value.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = ["1", "", "3"].publisher
    ///     .tryCompactMap { text -> Int? in
    ///         guard !text.isEmpty else { throw EmptyText() }
    ///         return Int(text)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, then failure
    /// ```
    ///
    /// **Demand:** as ``Publisher/compactMap(_:)``.
    /// **Thread safety:** as ``Publisher/compactMap(_:)``; after a throw the upstream is cancelled exactly once and
    /// nothing more reaches the subscriber.
    public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?)
        -> Publishers.TryCompactMap<Self, T>
    {
        return Publishers.TryCompactMap(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that republishes all non-nil results of calling a closure with each received element.
    ///
    /// **Demand:** see ``Publisher/compactMap(_:)``.
    /// **Thread safety:** see ``Publisher/compactMap(_:)``.
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that receives values from the upstream publisher and returns optional values.
        public let transform: (Upstream.Output) -> Output?

        /// Creates a publisher that republishes all non-`nil` results of calling a closure with each received
        /// element.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through a transparent wrapper (a struct: no allocation per subscription).
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Upstream.Failure == S.Failure {
            // `receive`, not `subscribe`: see Publishers.Map.receive(subscriber:).
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }

    /// A publisher that republishes all non-nil results of calling an error-throwing closure with each received
    /// element.
    ///
    /// **Demand:** see ``Publisher/tryCompactMap(_:)``.
    /// **Thread safety:** see ``Publisher/tryCompactMap(_:)``.
    public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure that receives values from the upstream publisher and returns optional values.
        public let transform: (Upstream.Output) throws -> Output?

        /// Creates the publisher.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            let transform = self.transform
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryCompactMap", behavior: .strict, mirror: .downstreamOnly,
                    tryStep: { value in
                        try transform(value).map { .emit($0) } ?? .skip
                    }))
        }
    }
}

extension Publishers.CompactMap {
    /// Fuses two compact maps into one stage.
    public func compactMap<T>(_ transform: @escaping (Output) -> T?)
        -> Publishers.CompactMap<Upstream, T>
    {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
    }

    /// Fuses a compact map followed by a map into one stage.
    public func map<T>(_ transform: @escaping (Output) -> T)
        -> Publishers.CompactMap<Upstream, T>
    {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
    }
}

extension Publishers.TryCompactMap {
    /// Fuses two throwing compact maps into one throwing stage.
    public func compactMap<T>(_ transform: @escaping (Output) throws -> T?)
        -> Publishers.TryCompactMap<Upstream, T>
    {
        let first = self.transform
        return Publishers.TryCompactMap(upstream: upstream) { try first($0).flatMap(transform) }
    }
}

extension Publishers.CompactMap {
    // Transparent like Map's, as in Combine: the downstream talks to the upstream's own subscription, and a `nil`
    // result returns `.max(1)` from `receive(_:)`.
    struct Inner<Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let downstream: Downstream
        let transform: (Upstream.Output) -> Output?

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let output = transform(input) else { return .max(1) }
            return downstream.receive(output)
        }

        var description: String { "CompactMap" }
    }
}
