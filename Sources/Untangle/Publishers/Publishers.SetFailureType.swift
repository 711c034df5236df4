extension Publisher where Failure == Never {
    /// Changes the failure type declared by the upstream publisher.
    ///
    /// The upstream never fails, so the new failure type is only a declaration: use it to match the failure type
    /// of another publisher.
    ///
    /// ```swift
    /// let cancellable = Just(1)
    ///     .setFailureType(to: URLError.self)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, finished
    /// ```
    ///
    /// **Demand:** passed through unchanged: the downstream's subscription is the upstream's own.
    /// **Thread safety:** as the upstream.
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}

extension Publishers {
    /// A publisher that appears to send a specified failure type.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that appears to send a specified failure type.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through a transparent wrapper.
        // Inlinable, so that a client (UntangleExtras' `Single(value)`, `Just(value).setFailureType(to:)` chains)
        // runs it specialized: unspecialized, subscribing a `Just` through it made 27 runtime metadata lookups.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Upstream.Output == S.Input {
            upstream.subscribe(Inner(downstream: subscriber))
        }

        /// Changes the declared failure type again, without another stage.
        public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
            Publishers.SetFailureType<Upstream, E>(upstream: upstream)
        }
    }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publishers.SetFailureType {
    // Transparent: the downstream talks to the upstream's own subscription.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Never

        @usableFromInline let downstream: Downstream

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Never>) {
            downstream.receive(completion: completion.promoted())
        }

        @usableFromInline
        var description: String { "SetFailureType" }
    }
}
