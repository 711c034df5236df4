extension Publisher {
    /// Collects all received elements, and emits a single array of the collection when the upstream publisher
    /// finishes.
    ///
    /// If the upstream fails, the collected elements are discarded and the failure is forwarded. The memory
    /// used grows with the number of elements: it is unbounded.
    ///
    /// ```swift
    /// let cancellable = (1...3).publisher
    ///     .collect()
    ///     .sink { print($0) }   // [1, 2, 3]
    /// ```
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); the array is delivered when the upstream finishes if the downstream has requested, else on its
    /// first request. A failure is forwarded at once.
    /// **Thread safety:** `request`/`cancel` may be called from any thread, also while the upstream completes; the
    /// array goes downstream exactly once; a subscriber that cancels while receiving it gets no `.finished`.
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}

extension Publishers {
    /// A publisher that buffers items.
    ///
    /// **Demand:** see ``Publisher/collect()``.
    /// **Thread safety:** see ``Publisher/collect()``.
    public struct Collect<Upstream: Publisher>: Publisher {
        /// All the upstream's elements, in order.
        public typealias Output = [Upstream.Output]
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, S.Input == [Upstream.Output] {
            let elements = OperatorVariable<[Upstream.Output]>([])
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "Collect", policy: .unlimitedAtSubscription,
                    reflection: .collection(count: { $0.count }),
                    onValue: { value in
                        elements.value.append(value)
                        return .absorb
                    },
                    onCompletion: { $0.reducerFinal(elements.take(leaving: [])) }))
        }
    }
}

extension Publishers.Collect: Equatable where Upstream: Equatable {}
