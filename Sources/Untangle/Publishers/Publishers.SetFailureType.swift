extension Publisher where Failure == Never {
    /// Changes the failure type declared by the upstream publisher.
    ///
    /// The publisher still never fails; only its declared `Failure` type changes, so it can be combined with
    /// publishers that can.
    ///
    /// ```swift
    /// let numbers: AnyPublisher<Int, URLError> = Just(1)
    ///     .setFailureType(to: URLError.self)
    ///     .eraseToAnyPublisher()
    /// ```
    ///
    /// **Demand:** passed through unchanged: the downstream's subscription is the upstream's own.
    /// **Thread safety:** as the upstream; nothing is added.
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}

extension Publishers {
    /// A publisher that appears to send a specified failure type.
    ///
    /// The publisher can't actually fail with the specified type and finishes normally.
    ///
    /// ```swift
    /// let typed = Publishers.SetFailureType<Just<Int>, Error>(upstream: Just(1))
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that appears to send a specified failure type.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through a transparent wrapper (no allocation per subscription).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.subscribe(Inner(downstream: subscriber))
        }

        /// Changes the failure type again (one stage, not two).
        @inlinable
        public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
            Publishers.SetFailureType<Upstream, E>(upstream: upstream)
        }
    }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publishers.SetFailureType {
    // Transparent: the downstream receives the upstream's own subscription.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible
    where Downstream.Input == Output, Downstream.Failure == Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Never

        @usableFromInline let downstream: Downstream

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

        @inlinable
        func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Never>) {
            downstream.receive(completion: .finished)
        }

        @usableFromInline
        var description: String { "SetFailureType" }
    }
}
