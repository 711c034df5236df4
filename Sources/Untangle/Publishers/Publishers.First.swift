extension Publisher {
    /// Publishes the first element of a stream, then finishes.
    ///
    /// ```swift
    /// let cancellable = (4...10).publisher
    ///     .first()
    ///     .sink { print($0) }   // 4
    /// ```
    ///
    /// If the upstream finishes without a value, this publisher finishes without one.
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); on the first value it cancels the upstream, then delivers the value and finishes once the
    /// downstream has requested. An empty upstream's `.finished` also waits for the first request.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; the upstream is cancelled exactly once
    /// and the value goes downstream exactly once; a subscriber that cancels while receiving it gets no `.finished`.
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self)
    }

    /// Publishes the first element of a stream to satisfy a predicate closure, then finishes.
    ///
    /// ```swift
    /// let cancellable = (1...10).publisher
    ///     .first { $0 * $0 > 10 }
    ///     .sink { print($0) }   // 4
    /// ```
    ///
    /// **Demand:** as ``Publisher/first()``.
    /// **Thread safety:** as ``Publisher/first()``; the predicate runs on the thread that delivers each upstream
    /// value, with no lock held.
    public func first(where predicate: @escaping (Output) -> Bool)
        -> Publishers.FirstWhere<Self>
    {
        return Publishers.FirstWhere(upstream: self, predicate: predicate)
    }

    /// Publishes the first element of a stream to satisfy a throwing predicate closure, then finishes.
    ///
    /// If the predicate throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 2, -1, 5].publisher
    ///     .tryFirst { value in
    ///         guard value >= 0 else { throw NegativeValue() }
    ///         return value > 3
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(NegativeValue())
    /// ```
    ///
    /// **Demand:** as ``Publisher/first()``.
    /// **Thread safety:** as ``Publisher/first(where:)``; after a throw nothing but the failure reaches the
    /// subscriber.
    public func tryFirst(where predicate: @escaping (Output) throws -> Bool)
        -> Publishers.TryFirstWhere<Self>
    {
        return Publishers.TryFirstWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that publishes the first element of a stream, then finishes.
    ///
    /// **Demand:** see ``Publisher/first()``.
    /// **Thread safety:** see ``Publisher/first()``.
    public struct First<Upstream: Publisher>: Publisher {
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
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "First", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    onValue: { .finish($0) },
                    onCompletion: { (nil, $0) }))
        }
    }

    /// A publisher that only publishes the first element of a stream to satisfy a predicate closure.
    ///
    /// **Demand:** see ``Publisher/first(where:)``.
    /// **Thread safety:** see ``Publisher/first(where:)``.
    public struct FirstWhere<Upstream: Publisher>: Publisher {
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
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "TryFirst", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    onValue: { predicate($0) ? .finish($0) : .absorb },
                    onCompletion: { (nil, $0) }))
        }
    }

    /// A publisher that only publishes the first element of a stream to satisfy a throwing predicate closure.
    ///
    /// **Demand:** see ``Publisher/tryFirst(where:)``.
    /// **Thread safety:** see ``Publisher/tryFirst(where:)``.
    public struct TryFirstWhere<Upstream: Publisher>: Publisher {
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
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "TryFirstWhere", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: nil),
                    tryOnValue: { try predicate($0) ? .finish($0) : .absorb },
                    onCompletion: { $0.erasedReducerFinal(nil) }))
        }
    }
}

extension Publishers.First: Equatable where Upstream: Equatable {}
