extension Publisher {
    /// Measures and emits the time interval between events received from an upstream publisher.
    ///
    /// Each upstream value is replaced by the time elapsed, on `scheduler`'s clock (its `now`), since the previous
    /// value, or, for the first value, since the moment of subscribing. The scheduler is only read, never scheduled
    /// on: values arrive on the upstream's thread.
    ///
    /// ```swift
    /// let cancellable = taps
    ///     .measureInterval(using: DispatchQueue.main)
    ///     .sink { print("since the previous tap: \($0)") }
    /// ```
    ///
    /// **Demand:** passed through unchanged (one interval per upstream value).
    /// **Thread safety:** values and completion are delivered on the upstream's thread, one at a time, with no lock
    /// held; `request`/`cancel` may be called from any thread.
    public func measureInterval<S: Scheduler>(using scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.MeasureInterval<Self, S>
    {
        Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
    }
}

extension Publishers {
    /// A publisher that measures and emits the time interval between events received from an upstream publisher.
    ///
    /// ```swift
    /// let gaps = Publishers.MeasureInterval(upstream: subject, scheduler: DispatchQueue.main)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/measureInterval(using:options:)``.
    public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the scheduler's time intervals.
        public typealias Output = Context.SchedulerTimeType.Stride

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The scheduler used for tracking the timing of events.
        public let scheduler: Context

        /// Creates a publisher that measures and emits the time interval between events received from an upstream
        /// publisher.
        public init(upstream: Upstream, scheduler: Context) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches the subscriber; the clock starts now.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Upstream.Failure {
            let scheduler = self.scheduler
            let clock = LastInstant(scheduler.now)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "MeasureInterval",
                    step: { _ in
                        let now = scheduler.now
                        defer { clock.instant = now }
                        return .emit(clock.instant.distance(to: now))
                    },
                    completion: { $0 }))
        }
    }
}

/// The instant of the previous value. Read and written only on the upstream's signal path, which the contract
/// serializes, so it needs no lock (like StepSubscription's `ended` flag).
private final class LastInstant<Instant> {
    var instant: Instant

    init(_ instant: Instant) {
        self.instant = instant
    }
}
