import Untangle

extension Publisher {
    /// Republishes values for `duration` after the subscription, then finishes and cancels this publisher: RxSwift's
    /// `take(for:scheduler:)`.
    ///
    /// ```swift
    /// let cancellable = locationUpdates
    ///     .prefix(for: .seconds(10), scheduler: DispatchQueue.main)
    ///     .sink(receiveCompletion: { _ in stopSpinner() }, receiveValue: { update($0) })
    /// ```
    ///
    /// Built as `prefix(untilOutputFrom: Just(()).delay(for: duration, scheduler: scheduler))`; the clock starts
    /// when the subscriber subscribes.
    ///
    /// **Demand:** the downstream's demand goes to this publisher unchanged.
    /// **Thread safety:** as `prefix(untilOutputFrom:)`: the finishing timer runs on `scheduler`; the downstream
    /// receives one signal at a time.
    public func prefix<Context: Scheduler>(
        for duration: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions? = nil
    ) -> Publishers.PrefixForDuration<Self, Context> {
        Publishers.PrefixForDuration(upstream: self, duration: duration, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that republishes its upstream's values for a duration, then finishes.
    ///
    /// ```swift
    /// let firstTenSeconds = Publishers.PrefixForDuration(upstream: feed, duration: .seconds(10),
    ///                                                    scheduler: queue, options: nil)
    /// ```
    ///
    /// **Demand:** see ``Publisher/prefix(for:scheduler:options:)``.
    /// **Thread safety:** see ``Publisher/prefix(for:scheduler:options:)``.
    public struct PrefixForDuration<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are republished.
        public let upstream: Upstream
        /// How long values are republished.
        public let duration: Context.SchedulerTimeType.Stride
        /// The scheduler that runs the timer.
        public let scheduler: Context
        /// Options for the scheduler.
        public let options: Context.SchedulerOptions?

        /// Creates the publisher.
        public init(
            upstream: Upstream, duration: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?
        ) {
            self.upstream = upstream
            self.duration = duration
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber; the timer starts now.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream
                .prefix(untilOutputFrom: Just(()).delay(for: duration, scheduler: scheduler, options: options))
                .subscribe(subscriber)
        }
    }
}
