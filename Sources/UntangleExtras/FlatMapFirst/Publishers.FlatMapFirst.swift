import Untangle

extension Publisher {
    /// Transforms a value into a publisher and republishes its values, ignoring the values that arrive while that
    /// publisher is still active. RxSwift's `flatMapFirst`: the first wins until it finishes.
    ///
    /// The result finishes when this publisher and the active inner publisher have finished, and fails on the
    /// first failure of either.
    ///
    /// ```swift
    /// let cancellable = refreshTaps
    ///     .flatMapFirst { _ in api.reload() }     // taps during a reload are ignored
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** this publisher is asked for `.unlimited` (values that arrive while an inner is active are
    /// dropped, which is the point). The downstream's outstanding demand goes to the active inner, and carries over
    /// to the next one.
    /// **Thread safety:** publishers may deliver on any threads; the downstream receives one signal at a time.
    /// `transform` runs on this publisher's delivering thread, outside every lock. `request`/`cancel` may be called
    /// from any thread.
    public func flatMapFirst<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMapFirst<P, Self> where P.Failure == Failure
    {
        return Publishers.FlatMapFirst(upstream: self, transform: transform)
    }

    /// The first `flatMapFirst(_:)`, for inner publishers that cannot fail.
    ///
    /// ```swift
    /// let cancellable = failingTaps.flatMapFirst { _ in Just(1) }.sink(receiveCompletion: { _ in }) { _ in }
    /// ```
    ///
    /// **Demand:** as for the first `flatMapFirst(_:)`.
    /// **Thread safety:** as for the first `flatMapFirst(_:)`.
    public func flatMapFirst<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMapFirst<Publishers.SetFailureType<P, Failure>, Self> where P.Failure == Never
    {
        return Publishers.FlatMapFirst(upstream: self) { transform($0).setFailureType(to: Failure.self) }
    }
}

extension Publisher where Failure == Never {
    /// The first `flatMapFirst(_:)`, for an upstream that cannot fail and inner publishers that can.
    ///
    /// ```swift
    /// let cancellable = taps.flatMapFirst { _ in api.reload() }.sink(receiveCompletion: { _ in }) { _ in }
    /// ```
    ///
    /// **Demand:** as for the first `flatMapFirst(_:)`.
    /// **Thread safety:** as for the first `flatMapFirst(_:)`.
    public func flatMapFirst<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMapFirst<P, Publishers.SetFailureType<Self, P.Failure>>
    {
        return Publishers.FlatMapFirst(upstream: setFailureType(to: P.Failure.self), transform: transform)
    }

    /// The first `flatMapFirst(_:)`, when neither side can fail.
    ///
    /// ```swift
    /// let cancellable = taps.flatMapFirst { _ in Just(1) }.sink { print($0) }
    /// ```
    ///
    /// **Demand:** as for the first `flatMapFirst(_:)`.
    /// **Thread safety:** as for the first `flatMapFirst(_:)`.
    public func flatMapFirst<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMapFirst<P, Self> where P.Failure == Never
    {
        return Publishers.FlatMapFirst(upstream: self, transform: transform)
    }
}

extension Publishers {
    /// A publisher that republishes the values of one inner publisher at a time, ignoring upstream values that
    /// arrive while an inner is active.
    ///
    /// ```swift
    /// let reloads = Publishers.FlatMapFirst(upstream: taps) { _ in api.reload() }
    /// ```
    ///
    /// **Demand:** the upstream is asked for `.unlimited`; the downstream's outstanding demand goes to the active
    /// inner and carries over to the next.
    /// **Thread safety:** see the first `flatMapFirst(_:)`.
    public struct FlatMapFirst<NewPublisher: Publisher, Upstream: Publisher>: Publisher
    where NewPublisher.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = NewPublisher.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values start inner publishers.
        public let upstream: Upstream
        /// Makes the inner publisher for an upstream value.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates the publisher.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> NewPublisher) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber; it receives its subscription when the upstream's arrives.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                FlatMapFirstSubscription<Upstream, NewPublisher, S>(downstream: subscriber, transform: transform))
        }
    }
}
