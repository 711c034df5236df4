extension Publisher {
    /// Replaces any errors in the stream with the provided element.
    ///
    /// If the upstream fails, this publisher emits the provided element, then finishes normally.
    ///
    /// ```swift
    /// let cancellable = Fail<Int, MyError>(error: MyError())
    ///     .replaceError(with: 0)
    ///     .sink { print($0) }   // 0
    /// ```
    ///
    /// **Demand:** passed through unchanged. The replacement element waits for downstream demand: if the upstream
    /// fails while the downstream has no outstanding demand, it is delivered on the next request. An upstream value
    /// the downstream did not request traps, as in Combine.
    /// **Thread safety:** `request`/`cancel` may be called from any thread, also while the upstream fails; the
    /// replacement goes downstream at most once; a subscriber that cancels while receiving it gets no `.finished`.
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}

extension Publishers {
    /// A publisher that replaces any errors in the stream with a provided element.
    ///
    /// **Demand:** see ``Publisher/replaceError(with:)``.
    /// **Thread safety:** see ``Publisher/replaceError(with:)``.
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// It never fails: an error is replaced.
        public typealias Failure = Never

        /// The element with which to replace errors from the upstream publisher.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Never {
            let replacement = output
            upstream.subscribe(
                ReducerSubscription(
                    downstream: subscriber, name: "ReplaceError", policy: .passThroughTrappingUnrequested,
                    reflection: .none,
                    onValue: { .emit($0) },
                    onCompletion: { completion in
                        guard case .failure = completion else { return (nil, .finished) }
                        return (replacement, .finished)
                    }))
        }
    }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Upstream.Output: Equatable {}
