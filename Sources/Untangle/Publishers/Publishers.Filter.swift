extension Publisher {
    /// Republishes all elements that match a provided closure.
    ///
    /// ```swift
    /// let cancellable = (1...6).publisher
    ///     .filter { $0.isMultiple(of: 2) }
    ///     .sink { print($0) }   // 2, 4, 6
    /// ```
    ///
    /// **Demand:** passed through; each value filtered out asks the upstream for one more in its place, so the
    /// downstream receives as many values as it requested if the upstream has them.
    /// **Thread safety:** the closure runs on the thread that delivers each upstream value, with no lock held.
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
        Publishers.Filter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers {
    /// A publisher that republishes all elements that match a provided closure.
    ///
    /// **Demand:** see ``Publisher/filter(_:)``.
    /// **Thread safety:** as the upstream; the predicate runs with no lock held.
    public struct Filter<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that indicates whether to republish an element.
        public let isIncluded: (Upstream.Output) -> Bool

        /// Creates a publisher that republishes the upstream's elements for which `isIncluded` returns true.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches the subscriber through a filtering wrapper (a struct: no allocation per subscription).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            // `receive`, not `subscribe`: see Publishers.Map.receive(subscriber:).
            upstream.receive(subscriber: Inner(downstream: subscriber, isIncluded: isIncluded))
        }
    }
}

extension Publishers.Filter {
    /// Fuses two filters into one stage.
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Upstream> {
        let first = self.isIncluded
        return Publishers.Filter(upstream: upstream) { first($0) && isIncluded($0) }
    }

    // Transparent like Map's: the downstream talks to the upstream's own subscription.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let isIncluded: (Upstream.Output) -> Bool

        @inlinable
        init(downstream: Downstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
            self.downstream = downstream
            self.isIncluded = isIncluded
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            isIncluded(input) ? downstream.receive(input) : .max(1)
        }

        @usableFromInline
        var description: String { "Filter" }
    }
}
