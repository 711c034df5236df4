extension Publisher {
    /// Applies a closure that collects each element of a stream and publishes a final result upon completion.
    ///
    /// ```swift
    /// let cancellable = (1...4).publisher
    ///     .reduce(0, +)
    ///     .sink { print($0) }   // 10
    /// ```
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); the single result is delivered when the upstream finishes if the downstream has requested,
    /// else on its first request. A failure is forwarded at once.
    /// **Thread safety:** the closure runs on the thread that delivers each upstream value, with no lock held;
    /// `request`/`cancel` may be called from any thread, also while the upstream completes.
    public func reduce<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T
    )
        -> Publishers.Reduce<Self, T>
    {
        return Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }

    /// Applies an error-throwing closure that collects each element of a stream and publishes a final result upon
    /// completion.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the thrown error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 0].publisher
    ///     .tryReduce(100) { total, next in
    ///         guard next != 0 else { throw DivisionByZero() }
    ///         return total / next
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(DivisionByZero())
    /// ```
    ///
    /// **Demand:** as ``Publisher/reduce(_:_:)``.
    /// **Thread safety:** as ``Publisher/reduce(_:_:)``; after a throw the upstream is cancelled exactly once and
    /// only the failure reaches the subscriber.
    public func tryReduce<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T
    )
        -> Publishers.TryReduce<Self, T>
    {
        return Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that applies a closure to all received elements and produces an accumulated value when the
    /// upstream publisher finishes.
    ///
    /// **Demand:** see ``Publisher/reduce(_:_:)``.
    /// **Thread safety:** see ``Publisher/reduce(_:_:)``.
    public struct Reduce<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on the first invocation of the closure.
        public let initial: Output

        /// A closure that takes the previously-accumulated value and the next element from the upstream publisher
        /// to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates the publisher.
        @inlinable
        public init(
            upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Upstream.Failure == S.Failure {
            // @inlinable, and `receive` rather than `subscribe`, so the whole upstream chain is specialized in the
            // caller (see Publishers.Map.receive(subscriber:)).
            let next = nextPartialResult
            let accumulator = OperatorVariable(initial)
            upstream.receive(
                subscriber:
                    ReducerSubscription(
                        downstream: subscriber, name: "Reduce", policy: .unlimitedAtSubscription,
                        reflection: .reducer(initial: initial),
                        onValue: { value in
                            accumulator.value = next(accumulator.value, value)
                            return .absorb
                        },
                        onCompletion: { $0.reducerFinal(accumulator.value) }))
        }
    }

    /// A publisher that applies an error-throwing closure to all received elements and produces an accumulated
    /// value when the upstream publisher finishes.
    ///
    /// **Demand:** see ``Publisher/tryReduce(_:_:)``.
    /// **Thread safety:** see ``Publisher/tryReduce(_:_:)``.
    public struct TryReduce<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The initial value provided on the first invocation of the closure.
        public let initial: Output

        /// An error-throwing closure that takes the previously-accumulated value and the next element from the
        /// upstream to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            let next = nextPartialResult
            let accumulator = OperatorVariable(initial)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "TryReduce", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: initial),
                    tryOnValue: { value in
                        accumulator.value = try next(accumulator.value, value)
                        return .absorb
                    },
                    onCompletion: { $0.erasedReducerFinal(accumulator.value) }))
        }
    }
}
