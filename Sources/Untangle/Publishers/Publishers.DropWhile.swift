extension Publisher {
    /// Omits elements from the upstream publisher until a given closure returns false, before republishing all
    /// remaining elements.
    ///
    /// ```swift
    /// let cancellable = [-1, -2, 3, -4].publisher
    ///     .drop { $0 < 0 }
    ///     .sink { print($0) }   // 3, -4
    /// ```
    ///
    /// **Demand:** passed through; each value dropped asks the upstream for one more in its place.
    /// **Thread safety:** the predicate runs on the thread that delivers each upstream value (only until it first
    /// returns false), with no lock held; `request`/`cancel` may be called from any thread.
    public func drop(while predicate: @escaping (Output) -> Bool)
        -> Publishers.DropWhile<Self>
    {
        return Publishers.DropWhile(upstream: self, predicate: predicate)
    }

    /// Omits elements from the upstream publisher until an error-throwing closure returns false, before
    /// republishing all remaining elements.
    ///
    /// If the closure throws, the publisher cancels the upstream and fails with the error.
    ///
    /// ```swift
    /// let cancellable = [1, 0, 3].publisher
    ///     .tryDrop { value in
    ///         guard value != 0 else { throw ZeroValue() }
    ///         return value < 2
    ///     }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // failure(ZeroValue())
    /// ```
    ///
    /// **Demand:** as ``Publisher/drop(while:)``.
    /// **Thread safety:** as ``Publisher/drop(while:)``; after a throw the upstream is cancelled exactly once and
    /// nothing more reaches the subscriber.
    public func tryDrop(while predicate: @escaping (Output) throws -> Bool)
        -> Publishers.TryDropWhile<Self>
    {
        return Publishers.TryDropWhile(upstream: self, predicate: predicate)
    }
}

extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a given closure returns false.
    ///
    /// **Demand:** see ``Publisher/drop(while:)``.
    /// **Thread safety:** see ``Publisher/drop(while:)``.
    public struct DropWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that indicates whether to drop the element.
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
            let dropping = OperatorVariable(true)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "DropWhile", behavior: .lenient,
                    step: { value in
                        if dropping.value && predicate(value) { return .skip }
                        dropping.value = false
                        return .emit(value)
                    },
                    completion: { $0 }))
        }
    }

    /// A publisher that omits elements from an upstream publisher until a given error-throwing closure returns
    /// false.
    ///
    /// **Demand:** see ``Publisher/tryDrop(while:)``.
    /// **Thread safety:** see ``Publisher/tryDrop(while:)``.
    public struct TryDropWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// Any error: the upstream's or the one the closure threw.
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that indicates whether to drop the element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            let predicate = self.predicate
            let dropping = OperatorVariable(true)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "TryDropWhile", behavior: .lenient,
                    tryStep: { value in
                        if dropping.value, try predicate(value) { return .skip }
                        dropping.value = false
                        return .emit(value)
                    }))
        }
    }
}
