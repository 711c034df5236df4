extension Publisher {
    /// Transforms elements from the upstream publisher by providing the current element to a closure along with
    /// the last value returned by the closure.
    ///
    /// ```swift
    /// let cancellable = (1...4).publisher
    ///     .scan(0, +)
    ///     .sink { print($0) }   // 1, 3, 6, 10
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** the closure runs on the thread that delivers each upstream value, with no lock held;
    /// `request`/`cancel` may be called from any thread.
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T)
        -> Publishers.Scan<Self, T>
    {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }

    /// Transforms elements from the upstream publisher by providing the current element to an error-throwing
    /// closure along with the last value returned by the closure.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 0].publisher
    ///     .tryScan(10) { total, next in
    ///         guard next != 0 else { throw DivisionByZero() }
    ///         return total / next
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 10, 5, then failure
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as ``Publisher/scan(_:_:)``; after a throw the upstream is cancelled exactly once and
    /// nothing more reaches the subscriber.
    public func tryScan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T)
        -> Publishers.TryScan<Self, T>
    {
        Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

extension Publishers {
    /// A publisher that transforms elements by applying a closure that receives its previous return value and the
    /// next element from the upstream publisher.
    ///
    /// **Demand:** see ``Publisher/scan(_:_:)``.
    /// **Thread safety:** see ``Publisher/scan(_:_:)``.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, to pass to the closure along with the first element.
        public let initialResult: Output

        /// A closure that takes as its arguments the previous value returned by the closure and the next element
        /// emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Upstream.Failure == S.Failure {
            let next = nextPartialResult
            let accumulator = OperatorVariable(initialResult)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "Scan",
                    step: { value in
                        accumulator.value = next(accumulator.value, value)
                        return .emit(accumulator.value)
                    },
                    completion: { $0 }))
        }
    }

    /// A publisher that transforms elements by applying an error-throwing closure that receives its previous
    /// return value and the next element from the upstream publisher.
    ///
    /// **Demand:** see ``Publisher/tryScan(_:_:)``.
    /// **Thread safety:** see ``Publisher/tryScan(_:_:)``.
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, to pass to the closure along with the first element.
        public let initialResult: Output

        /// An error-throwing closure that takes as its arguments the previous value returned by the closure and
        /// the next element emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            let next = nextPartialResult
            let accumulator = OperatorVariable(initialResult)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryScan",
                    step: { value in
                        do {
                            accumulator.value = try next(accumulator.value, value)
                            return .emit(accumulator.value)
                        } catch {
                            return .fail(error)
                        }
                    },
                    completion: { $0.mapFailure { $0 as Error } }))
        }
    }
}
