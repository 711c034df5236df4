extension Publisher {
    /// Specifies the scheduler on which to receive elements from the publisher.
    ///
    /// Values and the completion are handed to `scheduler` with `schedule(options:_:)`, in the order the upstream
    /// sent them, and reach the subscriber from there. The subscription itself (`receive(subscription:)`) and the
    /// subscriber's `request`/`cancel` calls are not moved: use ``Publisher/subscribe(on:options:)`` for those.
    ///
    /// ```swift
    /// let cancellable = loader.results
    ///     .receive(on: DispatchQueue.main)
    ///     .sink { label.text = $0 }   // on the main queue
    /// ```
    ///
    /// **Demand:** requests pass through unchanged (`.none` too); values reach the subscriber whatever it asked for
    /// (as Apple's); demand the subscriber returns from `receive(_:)` is requested upstream.
    /// **Thread safety:** values and completion are delivered on the scheduler, one at a time even on a concurrent
    /// queue, and in the upstream's order on a serial scheduler. `request`/`cancel` may be called from any thread;
    /// once `cancel()` returns, no value still waiting on the scheduler is delivered (a delivery already running on
    /// the scheduler finishes). The completion follows every value sent before it; as in Apple's Combine, once the
    /// upstream has completed `cancel()` does nothing, and work still on the scheduler keeps the subscriber alive
    /// until it has run.
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.ReceiveOn<Self, S>
    {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delivers elements to its downstream subscriber on a specific scheduler.
    ///
    /// ```swift
    /// let onMain = Publishers.ReceiveOn(upstream: subject, scheduler: DispatchQueue.main, options: nil)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/receive(on:options:)``.
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The scheduler the publisher uses to deliver elements.
        public let scheduler: Context

        /// Scheduler options used to customize element delivery.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delivers elements to its downstream subscriber on a specific scheduler.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber: its values and completion arrive on the scheduler.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                DescribedHopSubscription(
                    downstream: subscriber, name: "ReceiveOn", scheduler: scheduler, options: options))
        }
    }
}
