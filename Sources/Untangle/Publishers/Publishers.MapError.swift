extension Publisher {
    /// Converts any failure from the upstream publisher into a new error.
    ///
    /// ```swift
    /// let cancellable = Fail<Int, URLError>(error: URLError(.badURL))
    ///     .mapError { AppError.network($0) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })   // failure(AppError.network(...))
    /// ```
    ///
    /// **Demand:** passed through unchanged: the downstream's subscription is the upstream's own.
    /// **Thread safety:** as the upstream; the closure runs on the thread that delivers the failure, with no lock
    /// held.
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E)
        -> Publishers.MapError<Self, E>
    {
        return Publishers.MapError(upstream: self, transform)
    }
}

extension Publishers {
    /// A publisher that converts any failure from the upstream publisher into a new error.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/mapError(_:)``.
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that converts the upstream failure into a new error.
        public let transform: (Upstream.Failure) -> Failure

        /// Creates a publisher that converts any failure from the upstream publisher into a new error.
        public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Creates a publisher that converts any failure from the upstream publisher into a new error.
        public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = map
        }

        /// Attaches the subscriber through a transparent wrapper.
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Upstream.Output == S.Input {
            upstream.subscribe(Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.MapError {
    // Transparent like Map's: the downstream talks to the upstream's own subscription.
    struct Inner<Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let downstream: Downstream
        let transform: (Upstream.Failure) -> Downstream.Failure

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion.mapFailure(transform))
        }

        var description: String { "MapError" }
    }
}
