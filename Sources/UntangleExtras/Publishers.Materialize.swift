import Untangle

extension Publisher {
    /// Turns every signal of this publisher into an ``Event`` value: values become `.value`, the completion
    /// becomes a last `.completion` value, and the result then finishes. It never fails.
    ///
    /// ```swift
    /// let cancellable = Fail<Int, MyError>(error: .offline).materialize().sink { print($0) }
    /// // prints "failure(offline)"
    /// ```
    ///
    /// **Demand:** the downstream's demand passes upstream one for one; the completion event needs one more unit of
    /// demand and waits for it (the completion itself follows without demand).
    /// **Thread safety:** `request` and `cancel` from any thread; the completion event may be delivered on the
    /// thread whose request makes room for it.
    public func materialize() -> Publishers.Materialize<Self> {
        Publishers.Materialize(upstream: self)
    }
}

extension Publishers {
    /// A publisher that emits its upstream's signals as ``Event`` values; see `materialize()`.
    ///
    /// ```swift
    /// let events: Publishers.Materialize<Just<Int>> = Just(1).materialize()
    /// ```
    ///
    /// **Demand:** one upstream value per downstream value; the completion event waits for one more unit.
    /// **Thread safety:** as the operator (any thread; downstream signals serialized).
    public struct Materialize<Upstream: Publisher>: Publisher {
        /// Every upstream signal, as a value.
        public typealias Output = Event<Upstream.Output, Upstream.Failure>
        /// Never fails: a failure becomes an event.
        public typealias Failure = Never

        /// The publisher whose signals are materialized.
        public let upstream: Upstream

        /// Creates the operator.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Subscribes `subscriber` through the operator.
        // Inlinable, so that the subscription is specialized in the caller (see Publishers.Map.receive(subscriber:)):
        // the reducer skeleton's generic code then costs no type-metadata lookups per value. `receive`, not
        // `subscribe` (as core's filter and compactMap): a chain calling the one generic `subscribe` once per
        // operator, with a growing subscriber type, is left unspecialized by the optimizer from the second such call
        // on (see Publishers.Map.receive(subscriber:)): `materialize().dematerialize()` ran its subject's, its
        // reducer's and its step's per-value code generic, 16 metadata lookups per value.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let inner = ReducerSubscription<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, name: "Materialize", policy: .passThrough, reflection: .none,
                onValue: { .emit(.value($0)) }, onCompletion: { (.completion($0), .finished) })
            upstream.receive(subscriber: inner)
        }
    }
}
