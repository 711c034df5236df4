extension Publisher {
    /// Publishes the last element of a stream, after the stream finishes.
    ///
    /// ```swift
    /// let cancellable = (1...5).publisher
    ///     .last()
    ///     .sink { print($0) }   // 5
    /// ```
    ///
    /// If the upstream finishes without a value, this publisher finishes without one; if it fails, the failure
    /// is forwarded and no value is published.
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); the value (or, for an empty upstream, the bare `.finished`) is delivered when the upstream
    /// finishes if the downstream has requested, else on its first request.
    /// **Thread safety:** `request`/`cancel` may be called from any thread, also while the upstream completes; the
    /// value goes downstream exactly once; a subscriber that cancels while receiving it gets no `.finished`.
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }

    /// Publishes the last element of a stream that satisfies a predicate closure, after upstream finishes.
    ///
    /// ```swift
    /// let cancellable = (1...10).publisher
    ///     .last { $0 < 6 }
    ///     .sink { print($0) }   // 5
    /// ```
    ///
    /// **Demand:** as ``Publisher/last()``.
    /// **Thread safety:** as ``Publisher/last()``; the predicate runs on the thread that delivers each upstream
    /// value, with no lock held.
    public func last(where predicate: @escaping (Output) -> Bool)
        -> Publishers.LastWhere<Self>
    {
        return Publishers.LastWhere(upstream: self, predicate: predicate)
    }

    /// Publishes the last element of a stream that satisfies an error-throwing predicate closure, after the stream
    /// finishes.
    ///
    /// If the predicate throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, -1].publisher
    ///     .tryLast { value in
    ///         guard value >= 0 else { throw NegativeValue() }
    ///         return true
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(NegativeValue())
    /// ```
    ///
    /// **Demand:** as ``Publisher/last()``.
    /// **Thread safety:** as ``Publisher/last(where:)``; after a throw nothing but the failure reaches the
    /// subscriber.
    public func tryLast(where predicate: @escaping (Output) throws -> Bool)
        -> Publishers.TryLastWhere<Self>
    {
        return Publishers.TryLastWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that waits until after the stream finishes, and then publishes the last element of the stream.
    ///
    /// **Demand:** see ``Publisher/last()``.
    /// **Thread safety:** see ``Publisher/last()``.
    public struct Last<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
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
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let last = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "Last", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    onValue: { value in
                        last.value = value
                        return .absorb
                    },
                    onCompletion: { $0.reducerFinal(last.take(leaving: nil)) }))
        }
    }

    /// A publisher that waits until after the stream finishes and then publishes the last element of the stream
    /// that satisfies a predicate closure.
    ///
    /// **Demand:** see ``Publisher/last(where:)``.
    /// **Thread safety:** see ``Publisher/last(where:)``.
    public struct LastWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let predicate = self.predicate
            let last = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "LastWhere", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    onValue: { value in
                        if predicate(value) { last.value = value }
                        return .absorb
                    },
                    onCompletion: { $0.reducerFinal(last.take(leaving: nil)) }))
        }
    }

    /// A publisher that waits until after the stream finishes and then publishes the last element of the stream
    /// that satisfies an error-throwing predicate closure.
    ///
    /// **Demand:** see ``Publisher/tryLast(where:)``.
    /// **Thread safety:** see ``Publisher/tryLast(where:)``.
    public struct TryLastWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the one the predicate threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            let predicate = self.predicate
            let last = OperatorVariable<Upstream.Output?>(nil)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "TryLastWhere", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    tryOnValue: { value in
                        if try predicate(value) { last.value = value }
                        return .absorb
                    },
                    onCompletion: { $0.erasedReducerFinal(last.take(leaving: nil)) }))
        }
    }
}

extension Publishers.Last: Equatable where Upstream: Equatable {}
