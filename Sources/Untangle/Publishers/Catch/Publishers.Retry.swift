extension Publisher {
    /// Attempts to recreate a failed subscription with the upstream publisher up to the number of times you
    /// specify.
    ///
    /// ```swift
    /// let cancellable = flakyRequest()
    ///     .retry(3)          // up to 4 subscriptions in all
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// As in Combine, a negative count retries forever; the subscriber gets its subscription when the upstream's
    /// first subscription arrives; a value it did not request traps.
    ///
    /// **Demand:** outstanding demand (requested, not yet delivered) is requested from each new subscription;
    /// demand returned from `receive(_:)` is requested from the current subscription.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; signals from a failed subscription
    /// after the retry are ignored; no lock is held while resubscribing. An upstream that fails synchronously inside
    /// `subscribe` is resubscribed in a loop once that call returned, never recursively.
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}

extension Publishers {
    /// A publisher that attempts to recreate its subscription to a failed upstream publisher.
    ///
    /// **Demand:** outstanding demand carries over to each new subscription.
    /// **Thread safety:** see ``Publisher/retry(_:)``.
    public struct Retry<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the last attempt's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum number of retry attempts to perform (nil or negative: retry forever).
        public let retries: Int?

        /// Creates a publisher that attempts to recreate its subscription to a failed upstream publisher.
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            let upstream = self.upstream
            let budget = RetryBudget(retries)
            // Combine's `retry`: a completion before the first subscription is passed on, failures of replaced
            // subscriptions are dropped, demand returned from `receive(_:)` is requested from the upstream.
            let behavior = ReplacingUpstreamSubscription<Output, Failure, S>.Behavior(
                name: "Retry", mirrorsDownstreamAndDemand: false, earlyCompletion: .handled,
                repeatedFailure: .ignored, returnedDemand: .requested)
            let subscription = ReplacingUpstreamSubscription<Output, Failure, S>(
                downstream: subscriber, behavior: behavior
            ) { error in
                if let remaining = budget.remaining {
                    guard remaining > 0 else { return .complete(.failure(error)) }
                    budget.remaining = remaining - 1
                }
                return .replace { upstream.subscribe($0) }
            }
            subscription.start { upstream.subscribe($0) }
        }
    }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

// The count of attempts left is touched only on the failure path of successive upstream generations, which follow
// one another (a generation is subscribed only after the previous one failed), never concurrently.
private final class RetryBudget: @unchecked Sendable {
    var remaining: Int?
    /// A negative count retries forever, as in Combine.
    init(_ remaining: Int?) { self.remaining = remaining.flatMap { $0 < 0 ? nil : $0 } }
}
