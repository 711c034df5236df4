extension Publisher {
    /// Publishes a single Boolean value that indicates whether all received elements pass a given predicate.
    ///
    /// It publishes `false` and cancels the upstream on the first element that fails the predicate, or `true`
    /// when the upstream finishes without one.
    ///
    /// ```swift
    /// let cancellable = [2, 4, 6].publisher
    ///     .allSatisfy { $0.isMultiple(of: 2) }
    ///     .sink { print($0) }   // true
    /// ```
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); the answer is delivered when known if the downstream has requested, else on its first request.
    /// **Thread safety:** the predicate runs on the thread that delivers each upstream value, with no lock held; a
    /// subscriber that cancels while receiving the answer gets no `.finished`;
    /// `request`/`cancel` may be called from any thread, also while the upstream completes; the answer goes
    /// downstream exactly once.
    public func allSatisfy(_ predicate: @escaping (Output) -> Bool)
        -> Publishers.AllSatisfy<Self>
    {
        return Publishers.AllSatisfy(upstream: self, predicate: predicate)
    }

    /// Publishes a single Boolean value that indicates whether all received elements pass a given error-throwing
    /// predicate.
    ///
    /// If the predicate throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [2, -4, 6].publisher
    ///     .tryAllSatisfy { value in
    ///         guard value >= 0 else { throw NegativeValue() }
    ///         return value.isMultiple(of: 2)
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(NegativeValue())
    /// ```
    ///
    /// **Demand:** as ``Publisher/allSatisfy(_:)``.
    /// **Thread safety:** as ``Publisher/allSatisfy(_:)``; after a throw nothing but the failure reaches the
    /// subscriber.
    public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool)
        -> Publishers.TryAllSatisfy<Self>
    {
        return Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that publishes a single Boolean value that indicates whether all received elements pass a given
    /// predicate.
    ///
    /// **Demand:** see ``Publisher/allSatisfy(_:)``.
    /// **Thread safety:** see ``Publisher/allSatisfy(_:)``.
    public struct AllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every element passed.
        public typealias Output = Bool
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, S.Input == Bool {
            let predicate = self.predicate
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "AllSatisfy", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: true),
                    onValue: { predicate($0) ? .absorb : .finish(false) },
                    onCompletion: { $0.reducerFinal(true) }))
        }
    }

    /// A publisher that publishes a single Boolean value that indicates whether all received elements pass a given
    /// error-throwing predicate.
    ///
    /// **Demand:** see ``Publisher/tryAllSatisfy(_:)``.
    /// **Thread safety:** see ``Publisher/tryAllSatisfy(_:)``.
    public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every element passed.
        public typealias Output = Bool
        /// Any error: the upstream's or the one the predicate threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that evaluates each received element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Error, S.Input == Bool {
            let predicate = self.predicate
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "TryAllSatisfy", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: true),
                    tryOnValue: { try predicate($0) ? .absorb : .finish(false) },
                    onCompletion: { $0.erasedReducerFinal(true) }))
        }
    }
}
