import Untangle

extension Publisher {
    /// Emits the latest value of this publisher each time `sampler` emits, if a new value arrived since the previous
    /// sample: RxSwift's `sample(_:)`.
    ///
    /// When this publisher finishes, the next tick of `sampler` emits the value not yet sampled (if any) and
    /// finishes. When `sampler` finishes, its completion counts as a last tick: the value not yet sampled is
    /// emitted and the result finishes (RxSwift would instead wait for this publisher to finish). A failure of
    /// either fails the result.
    ///
    /// ```swift
    /// let cancellable = mousePositions
    ///     .sample(Timer.publish(every: 0.1, on: .main, in: .common).autoconnect())
    ///     .sink { print($0) }
    /// ```
    ///
    /// **Demand:** this publisher and `sampler` are asked for `.unlimited` (only the latest value is kept). A sampled
    /// value that finds no downstream demand waits, replaced by any newer sample, until the downstream asks.
    /// **Thread safety:** both publishers may deliver on any threads; the downstream receives one signal at a time.
    /// `request`/`cancel` may be called from any thread.
    public func sample<Sampler: Publisher>(_ sampler: Sampler) -> Publishers.Sample<Self, Sampler>
    where Sampler.Failure == Failure {
        Publishers.Sample(upstream: self, sampler: sampler)
    }
}

extension Publishers {
    /// A publisher that emits its upstream's latest value when a sampler publisher emits.
    ///
    /// ```swift
    /// let sampled = Publishers.Sample(upstream: positions, sampler: ticks)
    /// ```
    ///
    /// **Demand:** see ``Publisher/sample(_:)``.
    /// **Thread safety:** see ``Publisher/sample(_:)``.
    public struct Sample<Upstream: Publisher, Sampler: Publisher>: Publisher
    where Sampler.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher sampled.
        public let upstream: Upstream
        /// The publisher whose values trigger samples.
        public let sampler: Sampler

        /// Creates the publisher.
        public init(upstream: Upstream, sampler: Sampler) {
            self.upstream = upstream
            self.sampler = sampler
        }

        /// Attaches the subscriber: it receives its subscription, then the upstream and the sampler are subscribed.
        // Inlinable, so that the subscription is specialized in the caller (see Publishers.Map.receive(subscriber:)):
        // the trigger skeleton's generic decisions then cost no type-metadata lookups per value.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            TriggerSubscription(
                downstream: subscriber, operator: SampleStateMachine<Output, Sampler.Output, Failure>(), output: { $0 }
            ).start(upstream: upstream, trigger: sampler)
        }
    }
}
