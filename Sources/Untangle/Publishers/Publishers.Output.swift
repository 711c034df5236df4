extension Publisher {
    /// Republishes elements up to the specified maximum count, then finishes.
    ///
    /// ```swift
    /// let cancellable = (0...10).publisher
    ///     .prefix(2)
    ///     .sink { print($0) }   // 0, 1
    /// ```
    ///
    /// A negative `maxLength` is a programming error and stops the program.
    ///
    /// **Demand:** as ``Publisher/output(in:)``.
    /// **Thread safety:** as ``Publisher/output(in:)``.
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        precondition(maxLength >= 0, "prefix(_:) needs a non-negative maxLength, got \(maxLength)")
        return output(in: ..<maxLength)
    }

    /// Publishes a specific element, indicated by its index in the sequence of published elements, then finishes.
    ///
    /// ```swift
    /// let cancellable = ["A", "B", "C"].publisher
    ///     .output(at: 1)
    ///     .sink { print($0) }   // "B"
    /// ```
    ///
    /// A negative index is a programming error and stops the program.
    ///
    /// **Demand:** as ``Publisher/output(in:)``.
    /// **Thread safety:** as ``Publisher/output(in:)``.
    public func output(at index: Int) -> Publishers.Output<Self> {
        precondition(index >= 0, "output(at:) needs a non-negative index, got \(index)")
        return output(in: index...index)
    }

    /// Publishes elements specified by their range in the sequence of published elements.
    ///
    /// After publishing the last element of the range, the publisher cancels the upstream and finishes at once. If
    /// the upstream completes first, the completion is forwarded. With an empty range it publishes nothing and
    /// finishes (cancelling the upstream) when the first element arrives. A range with a negative bound is a
    /// programming error and stops the program.
    ///
    /// ```swift
    /// let cancellable = [1, 1, 2, 2, 2, 3, 4, 5, 6].publisher
    ///     .output(in: 3...5)
    ///     .sink { print($0) }   // 2, 2, 3
    /// ```
    ///
    /// **Demand:** downstream requests pass upstream unchanged; each element before the range asks the upstream
    /// for one more in its place, so the downstream receives as many in-range elements as it requested. The last
    /// in-range element returns the subscriber's demand to the upstream, as in Combine, although the upstream is
    /// cancelled right after.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; the upstream is cancelled exactly once; a
    /// subscriber that cancels while receiving the last in-range element gets no `.finished`.
    /// As in Combine, a value or completion that arrives before the upstream's subscription is ignored, and so is a
    /// `request` or `cancel` made on the operator before it.
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
    }
}

extension Publishers {
    /// A publisher that publishes elements specified by a range in the sequence of published elements.
    ///
    /// **Demand:** see ``Publisher/output(in:)``.
    /// **Thread safety:** see ``Publisher/output(in:)``.
    public struct Output<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// The range of elements to publish.
        public let range: CountableRange<Int>

        /// Creates a publisher that publishes elements specified by a range. A negative bound stops the program.
        public init(upstream: Upstream, range: CountableRange<Int>) {
            precondition(range.lowerBound >= 0, "Publishers.Output needs a non-negative lower bound, got \(range)")
            self.upstream = upstream
            self.range = range
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let range = self.range
            let index = OperatorVariable(0)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "Output", behavior: .lenient,
                    step: { value in
                        defer { index.value &+= 1 }
                        if index.value < range.lowerBound { return .skip }
                        if index.value >= range.upperBound { return .finish }
                        return index.value == range.upperBound - 1 ? .emitThenFinish(value) : .emit(value)
                    },
                    completion: { $0 }))
        }
    }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}
