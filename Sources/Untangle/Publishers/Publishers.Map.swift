extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided closure.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher
    ///     .map { $0 * 10 }
    ///     .sink { print($0) }   // 10, 20, 30
    /// ```
    ///
    /// **Demand:** passed through unchanged: the downstream's subscription is the upstream's own.
    /// **Thread safety:** the closure runs on the thread that delivers each upstream value, one value at a time, with
    /// no lock held.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided closure.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream; the transform runs with no lock held.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) -> Output

        /// Creates a publisher that transforms all elements from the upstream publisher with a provided closure.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through a transforming wrapper (a struct: no allocation per subscription).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            // `receive(subscriber:)`, not `subscribe(_:)`: a chain that calls the same generic `subscribe` once per
            // operator, with a subscriber type growing each time, looks to the optimizer like an infinite
            // specialization and is left unspecialized from the third operator on (every value then runs generic
            // code with runtime type lookups). Each publisher's own `receive` is a different function.
            // With an `_Introspection` enabled, the upstream is subscribed through `subscribe` as in Combine, so the
            // map's own subscriber ("Map") is observed too; that check is one atomic load per subscription.
            let inner = Inner(downstream: subscriber, transform: transform)
            if IntrospectionHooks.isActive {
                IntrospectionHooks.subscribe(inner, to: upstream)
            } else {
                upstream.receive(subscriber: inner)
            }
        }
    }
}

extension Publishers.Map {
    /// Fuses two maps into one stage.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Upstream, T> {
        let first = self.transform
        return Publishers.Map(upstream: upstream) { transform(first($0)) }
    }

    /// Fuses a map followed by a throwing map into one throwing stage.
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T)
        -> Publishers.TryMap<Upstream, T>
    {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
    }
}

extension Publishers.Map {
    // A transparent wrapper: the downstream receives the upstream's own subscription, so requests and cancel cost
    // nothing extra, and the identity is the downstream's.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Output) -> Output

        @inlinable
        init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output) {
            self.downstream = downstream
            self.transform = transform
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            downstream.receive(transform(input))
        }

        @usableFromInline
        var description: String { "Map" }
    }
}
