import Untangle

extension Publisher {
    /// Subscribes to this publisher only after `interval` has passed on `scheduler`: RxSwift's
    /// `delaySubscription(_:scheduler:)`.
    ///
    /// The subscriber receives its subscription at once; requests made meanwhile are kept and passed on when the
    /// upstream is subscribed; cancelling before then means the upstream is never subscribed. Values are not
    /// delayed (compare `delay(for:scheduler:)`).
    ///
    /// ```swift
    /// let cancellable = poller.delaySubscription(for: .seconds(2), scheduler: DispatchQueue.main).sink { print($0) }
    /// ```
    ///
    /// **Demand:** the downstream's demand is kept until the upstream is subscribed, then forwarded as is.
    /// **Thread safety:** the upstream is subscribed on `scheduler`; `request`/`cancel` may be called from any
    /// thread.
    public func delaySubscription<Context: Scheduler>(
        for interval: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions? = nil
    ) -> Publishers.DelaySubscription<Self, Context> {
        Publishers.DelaySubscription(upstream: self, interval: interval, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that subscribes to its upstream after a delay.
    ///
    /// It is the composition `Just(()).delay(for:scheduler:).flatMap(maxPublishers: .max(1)) { upstream }`, so
    /// the demand and cancellation rules are those of `delay` and `flatMap`.
    ///
    /// ```swift
    /// let later = Publishers.DelaySubscription(upstream: feed, interval: .seconds(1), scheduler: queue, options: nil)
    /// ```
    ///
    /// **Demand:** see ``Publisher/delaySubscription(for:scheduler:options:)``.
    /// **Thread safety:** see ``Publisher/delaySubscription(for:scheduler:options:)``.
    public struct DelaySubscription<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher subscribed late.
        public let upstream: Upstream
        /// How long to wait before subscribing.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler that waits.
        public let scheduler: Context
        /// Options for the scheduler.
        public let options: Context.SchedulerOptions?

        /// Creates the publisher.
        public init(
            upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?
        ) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber; the upstream is subscribed after the interval.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let upstream = self.upstream
            Just(())
                .setFailureType(to: Failure.self)
                .delay(for: interval, scheduler: scheduler, options: options)
                .flatMap(maxPublishers: .max(1)) { _ in upstream }
                .subscribe(subscriber)
        }
    }
}
