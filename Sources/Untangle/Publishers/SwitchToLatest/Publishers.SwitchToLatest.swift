extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Republishes elements sent by the most recently received publisher.
    ///
    /// When a new inner publisher arrives, the previous inner is cancelled; none of its values is delivered after
    /// the switch (a value it sent that is still waiting for demand is dropped). The result finishes when the outer
    /// publisher and the current inner have finished, and fails on the first failure of either.
    ///
    /// ```swift
    /// let cancellable = searchText
    ///     .map { text in api.search(text) }
    ///     .switchToLatest()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** the outer publisher is asked for `.unlimited`. The downstream demand not yet met carries over to
    /// each new inner when it subscribes; later requests go to the current inner, and demand the downstream returns
    /// from `receive(_:)` goes back to the inner as the return value of its own `receive(_:)`, as in Combine. An
    /// inner that sends a value the downstream has not asked for stops the program, as in Combine.
    /// **Thread safety:** the outer and inner publishers may deliver on any threads; the downstream receives one
    /// signal at a time. The switch is decided under a lock and every value is checked against it right before
    /// delivery, so no delivery of a replaced inner's value starts after the switch (one that was already running
    /// on another thread at that moment completes). `request`/`cancel` may be called from any thread.
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Failure == Never, Output: Publisher {
    /// Republishes elements sent by the most recently received publisher, from an outer publisher that cannot fail.
    ///
    /// ```swift
    /// let cancellable = queries      // Failure == Never, Output: Publisher with Failure == URLError
    ///     .switchToLatest()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as for ``Publishers/SwitchToLatest``.
    /// **Thread safety:** as for ``Publishers/SwitchToLatest``.
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>> {
        Publishers.SwitchToLatest(upstream: setFailureType(to: Output.Failure.self))
    }
}

extension Publisher where Failure == Never, Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher, when neither can fail.
    ///
    /// ```swift
    /// let latest = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
    /// let cancellable = latest.switchToLatest().sink { print($0) }
    /// ```
    ///
    /// **Demand:** as for ``Publishers/SwitchToLatest``.
    /// **Thread safety:** as for ``Publishers/SwitchToLatest``.
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher, when only the outer publisher can fail.
    ///
    /// ```swift
    /// let cancellable = failingOuter          // Output == Just<Int>
    ///     .switchToLatest()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as for ``Publishers/SwitchToLatest``.
    /// **Thread safety:** as for ``Publishers/SwitchToLatest``.
    public func switchToLatest()
        -> Publishers.SwitchToLatest<
            Publishers.SetFailureType<Output, Failure>, Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>
        >
    {
        Publishers.SwitchToLatest(upstream: map { $0.setFailureType(to: Failure.self) })
    }
}

extension Publishers {
    /// A publisher that flattens nested publishers.
    ///
    /// Given a publisher that publishes publishers, it produces the values of only the most recent one: each new
    /// inner publisher cancels the previous one.
    ///
    /// ```swift
    /// let flattened = Publishers.SwitchToLatest(upstream: latest)
    /// ```
    ///
    /// **Demand:** the outer publisher is asked for `.unlimited`; the downstream demand not yet met carries over to
    /// each new inner, and later requests go to the current inner. Values of a replaced inner still waiting for
    /// demand are dropped and do not use up demand.
    /// **Thread safety:** see the `switchToLatest()` operators.
    public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
    where P == Upstream.Output, P.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = P.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = P.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that “flattens” nested publishers.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber: it receives its subscription at once, then the outer publisher is subscribed.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = SwitchToLatestSubscription<P, S>(downstream: subscriber)
            subscription.start()
            upstream.subscribe(subscription)
        }
    }
}
