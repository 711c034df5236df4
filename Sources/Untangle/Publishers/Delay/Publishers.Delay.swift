extension Publisher {
    /// Delays delivery of all output to the downstream receiver by a specified amount of time on a particular
    /// scheduler.
    ///
    /// Each value, and the completion (`.finished` or a failure), is scheduled on `scheduler` at the moment the
    /// upstream sent it plus `interval`, and delivered from there. The subscription itself is not delayed.
    ///
    /// ```swift
    /// let cancellable = taps
    ///     .delay(for: .milliseconds(300), scheduler: DispatchQueue.main)
    ///     .sink { showHint(for: $0) }
    /// ```
    ///
    /// **Demand:** requests pass through unchanged (`.none` too); values reach the subscriber whatever it asked for
    /// (as Apple's); demand the subscriber returns from `receive(_:)` is requested upstream.
    /// **Thread safety:** values and completion are delivered on the scheduler, one at a time, in the upstream's
    /// order on a serial scheduler. `request`/`cancel` may be called from any thread; once `cancel()` returns,
    /// no value still waiting out its delay is delivered. As in Apple's Combine, once the upstream has completed
    /// `cancel()` does nothing, and work still on the scheduler keeps the subscriber alive until it has run.
    public func delay<S: Scheduler>(
        for interval: S.SchedulerTimeType.Stride,
        tolerance: S.SchedulerTimeType.Stride? = nil,
        scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.Delay<Self, S> {
        Publishers.Delay(
            upstream: self, interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance,
            scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that delays delivery of elements and completion to the downstream receiver.
    ///
    /// ```swift
    /// let later = Publishers.Delay(upstream: Just(1), interval: .seconds(1), tolerance: .zero,
    ///                              scheduler: DispatchQueue.main)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/delay(for:tolerance:scheduler:options:)``.
    public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The amount of time to delay.
        public let interval: Context.SchedulerTimeType.Stride

        /// The allowed tolerance in firing delayed events.
        public let tolerance: Context.SchedulerTimeType.Stride

        /// The scheduler to deliver the delayed events.
        public let scheduler: Context

        /// Options relevant to the scheduler's behavior.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delays delivery of elements and completion to the downstream receiver.
        public init(
            upstream: Upstream,
            interval: Context.SchedulerTimeType.Stride,
            tolerance: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions? = nil
        ) {
            self.upstream = upstream
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber: each value and the completion arrive `interval` after the upstream sent them.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                HopSubscription(
                    downstream: subscriber, name: "Delay", scheduler: scheduler, options: options,
                    timing: .after(interval, tolerance: tolerance)))
        }
    }
}
