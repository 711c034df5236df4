extension Publisher {
    /// Transforms all elements from an upstream publisher into a new publisher up to a maximum number of publishers
    /// you specify.
    ///
    /// The values of every inner publisher are merged into one stream. The result finishes when the upstream and
    /// every inner publisher have finished and every waiting value was delivered, and fails on the first failure:
    /// an upstream failure cancels every inner, an inner's failure cancels the other inners and the upstream (Apple's
    /// Combine leaves the upstream running then, still holding the transform; Untangle releases it).
    ///
    /// ```swift
    /// let cancellable = userIDs
    ///     .flatMap(maxPublishers: .max(2)) { id in api.fetchUser(id) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as in Apple's Combine. The upstream is asked for `maxPublishers` values when it subscribes, then
    /// for one more each time an inner publisher finishes (`.unlimited`: asked once). Each inner is asked for one
    /// value when it subscribes (`.unlimited` once the downstream's demand is). A value that meets downstream demand
    /// is delivered at once and gives its inner one more unit of demand back; a value beyond the downstream's demand
    /// waits in arrival order, and its inner is asked for one more when it is delivered, so each live inner has at
    /// most one value waiting. With `maxPublishers: .max(0)` no upstream value is ever requested.
    /// **Thread safety:** the transform runs on the thread delivering each upstream value, with no lock held; inner
    /// publishers may deliver concurrently on any threads and the downstream still receives one signal at a time;
    /// `request`/`cancel` may be called from any thread, and cancel cancels the upstream and every inner.
    public func flatMap<T, P>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where T == P.Output, P: Publisher, Failure == P.Failure {
        return Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }

    /// Transforms all elements from an upstream publisher into a new publisher that cannot fail, up to a maximum
    /// number of publishers you specify.
    ///
    /// ```swift
    /// let cancellable = requests          // Failure == URLError
    ///     .flatMap { request in Just(request.priority) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as for ``Publishers/FlatMap``.
    /// **Thread safety:** as for ``Publishers/FlatMap``.
    public func flatMap<P>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P: Publisher, P.Failure == Never {
        return Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) {
            transform($0).setFailureType(to: Failure.self)
        }
    }
}

extension Publisher where Failure == Never {
    /// Transforms all elements from an upstream publisher that cannot fail into a new publisher that may, up to a
    /// maximum number of publishers you specify.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher
    ///     .flatMap { id in api.fetchUser(id) }     // Failure == URLError
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as for ``Publishers/FlatMap``.
    /// **Thread safety:** as for ``Publishers/FlatMap``.
    public func flatMap<P>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>> where P: Publisher {
        return Publishers.FlatMap(
            upstream: setFailureType(to: P.Failure.self), maxPublishers: maxPublishers, transform: transform)
    }

    /// Transforms all elements from an upstream publisher into a new publisher, neither of which can fail, up to a
    /// maximum number of publishers you specify.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher
    ///     .flatMap { Just($0 * 10) }
    ///     .sink { print($0) }   // 10, 20, 30
    /// ```
    ///
    /// **Demand:** as for ``Publishers/FlatMap``.
    /// **Thread safety:** as for ``Publishers/FlatMap``.
    public func flatMap<P>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where P: Publisher, P.Failure == Never {
        return Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publishers {
    /// A publisher that transforms elements from an upstream publisher into a new publisher.
    ///
    /// ```swift
    /// let flattened = Publishers.FlatMap(upstream: [1, 2].publisher, maxPublishers: .unlimited) { Just($0) }
    /// ```
    ///
    /// Finishes when the upstream and every inner publisher have finished; fails, cancelling the upstream and every
    /// other inner, on the first failure from either.
    ///
    /// **Demand:** the upstream is asked for `maxPublishers` values when it subscribes, then for one more each time
    /// an inner publisher finishes. Each inner is asked for one value when it subscribes (`.unlimited` once the
    /// downstream's demand is) and for one more each time one of its values is delivered; values beyond the
    /// downstream's demand wait in arrival order.
    /// **Thread safety:** inner publishers may deliver concurrently on any threads; the downstream receives one
    /// signal at a time; `request`/`cancel` may be called from any thread.
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
    where NewPublisher.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = NewPublisher.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of concurrent publisher subscriptions.
        public let maxPublishers: Subscribers.Demand

        /// A closure that takes an element as a parameter and returns a publisher that produces elements of that
        /// type.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates a publisher that transforms elements from an upstream publisher into a new publisher.
        public init(
            upstream: Upstream, maxPublishers: Subscribers.Demand,
            transform: @escaping (Upstream.Output) -> NewPublisher
        ) {
            self.upstream = upstream
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        /// Attaches the subscriber: it receives its subscription first, then the upstream is subscribed to.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
        where NewPublisher.Output == S.Input, Upstream.Failure == S.Failure {
            let subscription = FlatMapSubscription<Upstream, NewPublisher, S>(
                downstream: subscriber, maxPublishers: maxPublishers, transform: transform)
            // Like Apple's Combine: the downstream has its subscription before the upstream is subscribed to.
            subscription.start()
            upstream.subscribe(subscription)
        }
    }
}
