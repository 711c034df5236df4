extension Publisher {
    /// Republishes elements until another publisher emits an element, then finishes.
    ///
    /// ```swift
    /// let cancellable = ticks.prefix(untilOutputFrom: stopButtonTaps).sink { print($0) }
    /// ```
    ///
    /// The other publisher's completion (finished or failed) is ignored: only its first value ends the stream. The
    /// upstream is then cancelled (the other publisher's subscription is released, not cancelled, as in Combine).
    /// The upstream's completion cancels the other publisher.
    ///
    /// **Demand:** downstream requests pass straight to the upstream; the other publisher is asked for `.max(1)`.
    /// **Thread safety:** the two publishers may deliver on different threads; the downstream never sees the
    /// `.finished` caused by the other publisher while it is inside `receive(_:)` for an upstream value (it follows
    /// that call). `request`/`cancel` may be called from any thread; no library lock is held during callouts.
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that republishes elements until another publisher emits an element.
    ///
    /// ```swift
    /// let untilStop = Publishers.PrefixUntilOutput(upstream: ticks, other: stopButtonTaps)
    /// ```
    ///
    /// The other publisher is subscribed to first, then the upstream; the downstream receives its subscription when
    /// the upstream's arrives. If the other publisher emits before that, the downstream receives only `.finished`
    /// and the upstream is cancelled on arrival (as in Combine).
    ///
    /// **Demand:** downstream requests pass to the upstream; the other publisher is asked for `.max(1)`.
    /// **Thread safety:** see ``Publisher/prefix(untilOutputFrom:)``.
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// Another publisher, whose first output causes this publisher to finish.
        public let other: Other

        /// Creates a publisher that republishes elements until another publisher emits an element.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Subscribes to `other`, then to the upstream; the subscriber receives its subscription when the upstream's
        /// arrives.
        // Inlinable, so that the subscription is specialized in the caller (see Publishers.Map.receive(subscriber:)):
        // the trigger skeleton's generic decisions then cost no type-metadata lookups per value.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            TriggerSubscription(
                downstream: subscriber,
                operator: PrefixUntilOutputStateMachine<Output, Other.Output, Other.Failure, Failure>(),
                output: { $0 }
            ).start(upstream: upstream, trigger: other)
        }
    }
}
