extension Publisher {
    /// Terminates publishing if the upstream publisher exceeds the specified time interval without producing an
    /// element.
    ///
    /// The clock starts when the upstream's subscription arrives and restarts at every upstream value. If it runs
    /// out first, the upstream is cancelled and the subscriber receives `customError()` as a failure, or `.finished`
    /// when `customError` is nil. Values and the upstream's own completion are delivered on `scheduler` (as
    /// ``Publisher/receive(on:options:)`` does); the timeout's completion is delivered on `scheduler` too, after the
    /// values sent before it.
    ///
    /// ```swift
    /// let cancellable = response
    ///     .timeout(.seconds(5), scheduler: DispatchQueue.main, customError: { .timedOut })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** passed through unchanged; demand the subscriber returns from `receive(_:)` is requested upstream.
    /// The clock runs whether or not the subscriber has requested anything.
    /// **Thread safety:** `customError` runs on the scheduler, with no lock held, at most once. `request`/`cancel` may
    /// be called from any thread; once `cancel()` returns, nothing still waiting on the scheduler is delivered and
    /// the timer has no effect.
    public func timeout<S: Scheduler>(
        _ interval: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil,
        customError: (() -> Failure)? = nil
    ) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(
            upstream: self, interval: interval, scheduler: scheduler, options: options, customError: customError)
    }
}

extension Publishers {
    /// A publisher that terminates publishing if the upstream publisher exceeds a specified time interval without
    /// producing an element.
    ///
    /// ```swift
    /// let bounded = Publishers.Timeout(upstream: subject, interval: .seconds(1), scheduler: DispatchQueue.main,
    ///                                  options: nil, customError: nil)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/timeout(_:scheduler:options:customError:)``.
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum time interval the publisher can go without emitting an element, expressed in the time system
        /// of the scheduler.
        public let interval: Context.SchedulerTimeType.Stride

        /// The scheduler on which to deliver events.
        public let scheduler: Context

        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// A closure that executes if the publisher times out. The publisher sends the failure returned by this
        /// closure to the subscriber as the reason for termination.
        public let customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?

        /// Creates a publisher that terminates publishing if the upstream publisher exceeds the specified time
        /// interval without producing an element.
        public init(
            upstream: Upstream,
            interval: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions?,
            customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?
        ) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Attaches the subscriber and starts the clock when the upstream's subscription arrives.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                HopSubscription(
                    downstream: subscriber, name: "Timeout", scheduler: scheduler, options: options,
                    timeout: .init(interval: interval, customError: customError)))
        }
    }
}
