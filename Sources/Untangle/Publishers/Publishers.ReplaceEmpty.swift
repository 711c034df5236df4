extension Publisher {
    /// Replaces an empty stream with the provided element.
    ///
    /// If the upstream finishes without producing any elements, this publisher emits the provided element, then
    /// finishes normally. A failure is forwarded as is.
    ///
    /// ```swift
    /// let cancellable = Empty<Int, Never>()
    ///     .replaceEmpty(with: 42)
    ///     .sink { print($0) }   // 42
    /// ```
    ///
    /// **Demand:** every downstream request goes upstream unchanged, and nothing more: exact demand (Combine's also
    /// asks for `.unlimited` and then delivers values the subscriber never asked for; see ThreadSafety.md). The
    /// replacement element waits for downstream demand: if the upstream finishes empty before the downstream
    /// requested anything, it is delivered on the first request. `request(.none)` traps, as in Combine.
    /// **Thread safety:** `request`/`cancel` may be called from any thread, also while the upstream completes; the
    /// replacement goes downstream at most once; a subscriber that cancels while receiving it gets no `.finished`.
    public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
        Publishers.ReplaceEmpty(upstream: self, output: output)
    }
}

extension Publishers {
    /// A publisher that replaces an empty stream with a provided element.
    ///
    /// **Demand:** see ``Publisher/replaceEmpty(with:)``.
    /// **Thread safety:** see ``Publisher/replaceEmpty(with:)``.
    public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The element to deliver when the upstream publisher finishes without delivering any elements.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let replacement = output
            let empty = OperatorVariable(true)
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "ReplaceEmpty", policy: .passThrough,
                    reflection: .none,
                    onValue: { value in
                        empty.value = false
                        return .emit(value)
                    },
                    onCompletion: { completion in
                        guard case .finished = completion, empty.value else { return (nil, completion) }
                        return (replacement, .finished)
                    }))
        }
    }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}
