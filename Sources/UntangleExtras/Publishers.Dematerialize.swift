import Untangle

extension Publisher where Failure == Never {
    /// Turns ``Event`` values back into signals: `.value` events become values, the first `.completion` event
    /// ends the stream with that completion (and cancels this publisher). If this publisher finishes without a
    /// completion event, the result finishes too.
    ///
    /// ```swift
    /// let events = [Event<Int, MyError>.value(1), .completion(.failure(.offline))].publisher
    /// let cancellable = events.dematerialize().sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// // prints 1, then failure(offline)
    /// ```
    ///
    /// **Demand:** the downstream's demand passes upstream one for one; a completion event needs no demand.
    /// **Thread safety:** `request` and `cancel` from any thread; downstream signals are serialized.
    public func dematerialize<Value, EventFailure>() -> Publishers.Dematerialize<Self, Value, EventFailure>
    where Output == Event<Value, EventFailure> {
        Publishers.Dematerialize(upstream: self)
    }
}

extension Publishers {
    /// A publisher that replays ``Event`` values as signals; see `dematerialize()`.
    ///
    /// ```swift
    /// let roundTrip = Just(1).setFailureType(to: MyError.self).materialize().dematerialize()
    /// ```
    ///
    /// **Demand:** one upstream event per downstream value; completion events need no demand.
    /// **Thread safety:** as the operator (any thread; downstream signals serialized).
    public struct Dematerialize<Upstream: Publisher, Output, Failure: Error>: Publisher
    where Upstream.Output == Event<Output, Failure>, Upstream.Failure == Never {
        /// The publisher of events.
        public let upstream: Upstream

        /// Creates the operator.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes `subscriber` through the operator.
        // Inlinable, so that the subscription is specialized in the caller (see Publishers.Map.receive(subscriber:)):
        // the step skeleton's generic code then costs no type-metadata lookups per value. `receive`, not
        // `subscribe` (as core's filter and compactMap): a chain calling the one generic `subscribe` once per
        // operator, with a growing subscriber type, is left unspecialized by the optimizer from the second such call
        // on (see Publishers.Map.receive(subscriber:)): `materialize().dematerialize()` ran its subject's, its
        // reducer's and its step's per-value code generic, 16 metadata lookups per value.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = StepSubscription<Upstream.Output, Never, S>(
                downstream: subscriber, name: "Dematerialize",
                step: { event in
                    switch event {
                    case .value(let value): return .emit(value)
                    case .completion(.finished): return .finish
                    case .completion(.failure(let error)): return .fail(error)
                    }
                },
                completion: { _ in .finished })
            upstream.receive(subscriber: inner)
        }
    }
}
