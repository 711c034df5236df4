extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided closure.
    ///
    /// ```swift
    /// let cancellable = [1, 2, 3].publisher
    ///     .map { $0 * 10 }
    ///     .sink { print($0) }   // 10, 20, 30
    /// ```
    ///
    /// **Demand:** passed through unchanged: the downstream's subscription is the upstream's own.
    /// **Thread safety:** the closure runs on the thread that delivers each upstream value, one value at a time, with
    /// no lock held. Called on an actor (`isolation`, the caller's `#isolation`, e.g. in `@MainActor` code), the
    /// operator checks before each call that it runs on that actor and stops the program with a message naming the
    /// fix (`.receive(on: DispatchQueue.main)` before `map`) if not; pass `isolation: nil` to opt out.
    @inlinable
    public func map<T>(
        _ transform: @escaping (Output) -> T, isolation: (any Actor)? = #isolation
    ) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform, check: IsolationCheck(isolation))
    }
}

extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided closure.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as the upstream; the transform runs with no lock held.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) -> Output

        // The actor the closure was formed on (see IsolationCheck), checked before each call.
        @usableFromInline let isolation: IsolationCheck

        /// Creates a publisher that transforms all elements from the upstream publisher with a provided closure.
        ///
        /// `isolation` is the caller's actor (leave the default): created on an actor, the publisher checks before
        /// each call of `transform` that it runs on that actor.
        @inlinable
        public init(
            upstream: Upstream, transform: @escaping (Upstream.Output) -> Output,
            isolation: (any Actor)? = #isolation
        ) {
            self.init(upstream: upstream, transform: transform, check: IsolationCheck(isolation))
        }

        @inlinable
        init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output, check: IsolationCheck) {
            self.init(upstream: upstream, checkedTransform: check.wrapping(transform, "map"), recorded: check)
        }

        // `checkedTransform` already makes its checks (see IsolationCheck.wrapping); `recorded` is what `isolation`
        // reports.
        @inlinable
        init(upstream: Upstream, checkedTransform: @escaping (Upstream.Output) -> Output, recorded: IsolationCheck) {
            self.upstream = upstream
            self.transform = checkedTransform
            self.isolation = recorded
        }

        /// Attaches the subscriber through a transforming wrapper (a struct: no allocation per subscription).
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            // `receive(subscriber:)`, not `subscribe(_:)`: a chain that calls the same generic `subscribe` once per
            // operator, with a subscriber type growing each time, looks to the optimizer like an infinite
            // specialization and is left unspecialized from the third operator on (every value then runs generic
            // code with runtime type lookups). Each publisher's own `receive` is a different function.
            // With an `_Introspection` enabled, the upstream is subscribed through `subscribe` as in Combine, so the
            // map's own subscriber ("Map") is observed too; that check is one atomic load per subscription.
            let inner = Inner(downstream: subscriber, transform: transform)
            if IntrospectionHooks.isActive {
                IntrospectionHooks.subscribe(inner, to: upstream)
            } else {
                upstream.receive(subscriber: inner)
            }
        }
    }
}

extension Publishers.Map {
    /// Fuses two maps into one stage (each closure keeps its own isolation check; `isolation` reports the later
    /// closure's actor if it has one, else the earlier's).
    @inlinable
    public func map<T>(
        _ transform: @escaping (Output) -> T, isolation: (any Actor)? = #isolation
    ) -> Publishers.Map<Upstream, T> {
        let first = self.transform
        let check = IsolationCheck(isolation)
        let second = check.wrapping(transform, "map")
        return Publishers.Map(
            upstream: upstream, checkedTransform: { second(first($0)) }, recorded: self.isolation.then(check))
    }

    /// Fuses a map followed by a throwing map into one throwing stage (each closure keeps its own isolation check:
    /// `isolation` is the caller's actor for `transform`, as for `Publisher.tryMap(_:isolation:)`).
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T, isolation: (any Actor)? = #isolation)
        -> Publishers.TryMap<Upstream, T>
    {
        let transform = IsolationCheck(isolation).wrapping(transform, "tryMap")
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
    }
}

extension Publishers.Map {
    // A transparent wrapper: the downstream receives the upstream's own subscription, so requests and cancel cost
    // nothing extra, and the identity is the downstream's.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Output) -> Output

        @inlinable
        init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output) {
            self.downstream = downstream
            self.transform = transform
        }

        @inlinable
        var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

        @inlinable
        func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            downstream.receive(transform(input))
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline
        var description: String { "Map" }

        @usableFromInline
        var playgroundDescription: Any { description }

        @usableFromInline
        var customMirror: Mirror { Mirror(self, children: []) }
    }
}
