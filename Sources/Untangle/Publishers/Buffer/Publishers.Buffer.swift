extension Publisher {
    /// Buffers elements received from an upstream publisher.
    ///
    /// Elements the downstream has not asked for yet are stored, up to `size`; when an element arrives and the
    /// buffer is full, `whenFull` decides: drop it, drop the oldest stored element, or fail with a custom error
    /// (cancelling the upstream; the failure follows at the next delivery attempt, after the stored elements the
    /// subscriber has demand for). As in Apple's Combine: when the upstream finishes, the stored elements are
    /// delivered first and `.finished` follows once the subscriber has demand left (a subscriber whose demand the
    /// last element used up gets it at its next request; so does one that never requested anything); when it fails,
    /// the failure follows the stored elements the subscriber has demand for (at once if it has none) and the rest
    /// are discarded.
    ///
    /// ```swift
    /// let cancellable = sensorReadings
    ///     .buffer(size: 50, prefetch: .keepFull, whenFull: .dropOldest)
    ///     .sink { reading in slowlyProcess(reading) }
    /// ```
    ///
    /// **Demand:** `.keepFull` asks the upstream for `size` elements at subscription (before the subscriber receives
    /// its subscription) and one more for each element passed downstream. `.byRequest` asks for `.unlimited` at
    /// subscription, as Apple's Combine does, and forwards nothing after. `size` must not be negative; with `0`
    /// nothing is stored and nothing passes (`.keepFull` then asks for nothing). `.finished`, too, waits for demand
    /// (Apple's rule); a failure does not.
    /// **Thread safety:** the upstream may deliver on one thread while the downstream requests on others; the
    /// downstream receives one signal at a time, in upstream order.
    public func buffer(
        size: Int, prefetch: Publishers.PrefetchStrategy, whenFull: Publishers.BufferingStrategy<Failure>
    ) -> Publishers.Buffer<Self> {
        Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
    }
}

extension Publishers {
    /// A publisher that buffers elements from an upstream publisher.
    ///
    /// ```swift
    /// let buffered = Publishers.Buffer(upstream: source, size: 10, prefetch: .byRequest, whenFull: .dropNewest)
    /// ```
    ///
    /// **Demand:** see ``Publisher/buffer(size:prefetch:whenFull:)``.
    /// **Thread safety:** see ``Publisher/buffer(size:prefetch:whenFull:)``.
    public struct Buffer<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of elements to store.
        public let size: Int

        /// The strategy for initially populating the buffer.
        public let prefetch: Publishers.PrefetchStrategy

        /// The action to take when the buffer becomes full.
        public let whenFull: Publishers.BufferingStrategy<Failure>

        /// Creates a publisher that buffers elements received from an upstream publisher.
        ///
        /// - Precondition: `size >= 0`.
        public init(
            upstream: Upstream, size: Int, prefetch: Publishers.PrefetchStrategy,
            whenFull: Publishers.BufferingStrategy<Failure>
        ) {
            precondition(size >= 0, "buffer(size:prefetch:whenFull:) needs a size of zero or more (got \(size))")
            self.upstream = upstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        /// Attaches the subscriber; it receives its subscription when the upstream's arrives.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.subscribe(
                BufferSubscription<Upstream, S>(
                    downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull))
        }
    }
}
