extension Publisher where Output: Equatable {
    /// Publishes a Boolean value upon receiving an element equal to the argument.
    ///
    /// It publishes `true` and cancels the upstream on the first matching element, or `false` when the upstream
    /// finishes without one.
    ///
    /// ```swift
    /// let cancellable = [5, 10, 15].publisher
    ///     .contains(10)
    ///     .sink { print($0) }   // true
    /// ```
    ///
    /// **Demand:** as soon as it is subscribed it asks the upstream for `.unlimited` (after handing the subscriber its
    /// subscription); the answer is delivered when known if the downstream has requested, else on its first request.
    /// **Thread safety:** `request`/`cancel` may be called from any thread, also while the upstream completes; the
    /// answer goes downstream exactly once; a subscriber that cancels while receiving it gets no `.finished`.
    public func contains(_ output: Output) -> Publishers.Contains<Self> {
        Publishers.Contains(upstream: self, output: output)
    }
}

extension Publisher {
    /// Publishes a Boolean value upon receiving an element that satisfies the predicate closure.
    ///
    /// ```swift
    /// let cancellable = [1, 3, 8].publisher
    ///     .contains { $0.isMultiple(of: 2) }
    ///     .sink { print($0) }   // true
    /// ```
    ///
    /// **Demand:** as ``Publisher/contains(_:)``.
    /// **Thread safety:** as ``Publisher/contains(_:)``; the predicate runs on the thread that delivers each
    /// upstream value, with no lock held.
    public func contains(where predicate: @escaping (Output) -> Bool)
        -> Publishers.ContainsWhere<Self>
    {
        return Publishers.ContainsWhere(upstream: self, predicate: predicate)
    }

    /// Publishes a Boolean value upon receiving an element that satisfies the throwing predicate closure.
    ///
    /// If the predicate throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, -1, 8].publisher
    ///     .tryContains { value in
    ///         guard value >= 0 else { throw NegativeValue() }
    ///         return value > 5
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(NegativeValue())
    /// ```
    ///
    /// **Demand:** as ``Publisher/contains(_:)``.
    /// **Thread safety:** as ``Publisher/contains(where:)``; after a throw nothing but the failure reaches the
    /// subscriber.
    public func tryContains(where predicate: @escaping (Output) throws -> Bool)
        -> Publishers.TryContainsWhere<Self>
    {
        return Publishers.TryContainsWhere(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that emits a Boolean value when it receives a specific element from its upstream publisher.
    ///
    /// **Demand:** see ``Publisher/contains(_:)``.
    /// **Thread safety:** see ``Publisher/contains(_:)``.
    public struct Contains<Upstream: Publisher>: Publisher where Upstream.Output: Equatable {
        /// Whether the element was seen.
        public typealias Output = Bool
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The element to match in the upstream publisher.
        public let output: Upstream.Output

        /// Creates the publisher.
        public init(upstream: Upstream, output: Upstream.Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, S.Input == Bool {
            let wanted = output
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "Contains", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: false),
                    onValue: { $0 == wanted ? .finish(true) : .absorb },
                    onCompletion: { $0.reducerFinal(false) }))
        }
    }

    /// A publisher that emits a Boolean value upon receiving an element that satisfies the predicate closure.
    ///
    /// **Demand:** see ``Publisher/contains(where:)``.
    /// **Thread safety:** see ``Publisher/contains(where:)``.
    public struct ContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether a matching element was seen.
        public typealias Output = Bool
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether the publisher should consider an element as a match.
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
                    downstream: subscriber, name: "ContainsWhere", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: false),
                    onValue: { predicate($0) ? .finish(true) : .absorb },
                    onCompletion: { $0.reducerFinal(false) }))
        }
    }

    /// A publisher that emits a Boolean value upon receiving an element that satisfies the throwing predicate
    /// closure.
    ///
    /// **Demand:** see ``Publisher/tryContains(where:)``.
    /// **Thread safety:** see ``Publisher/tryContains(where:)``.
    public struct TryContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether a matching element was seen.
        public typealias Output = Bool
        /// Any error: the upstream's or the one the predicate threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether this publisher should emit a true element.
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
                    downstream: subscriber, name: "TryContainsWhere", policy: .unlimitedAtSubscription,
                    reflection: .reducer(initial: false),
                    tryOnValue: { try predicate($0) ? .finish(true) : .absorb },
                    onCompletion: { $0.erasedReducerFinal(false) }))
        }
    }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {}
