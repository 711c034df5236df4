import Untangle

extension Publisher {
    /// Switches to `fallback` if this publisher sends nothing for `interval`: RxSwift's `timeout(_:other:scheduler:)`.
    ///
    /// The timeout is Combine's `timeout(_:scheduler:options:customError:)` (the interval is measured from the
    /// subscription and restarted by each value); when it fires, this publisher is cancelled and the result
    /// continues with `fallback`'s values and completion. This publisher's own failure is passed through and does
    /// not start the fallback.
    ///
    /// ```swift
    /// let cancellable = api.liveQuote()
    ///     .timeout(.seconds(5), scheduler: DispatchQueue.main, fallback: cache.lastQuote())
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as Combine's `timeout` and `catch`: the downstream's outstanding demand goes to this publisher,
    /// then to `fallback` when it takes over.
    /// **Thread safety:** as Combine's `timeout`: the timer runs on `scheduler`, so the fallback is subscribed there;
    /// the downstream receives one signal at a time.
    public func timeout<Context: Scheduler, Fallback: Publisher>(
        _ interval: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions? = nil,
        fallback: Fallback
    ) -> Publishers.TimeoutFallback<Self, Context, Fallback>
    where Fallback.Output == Output, Fallback.Failure == Failure {
        Publishers.TimeoutFallback(
            upstream: self, interval: interval, scheduler: scheduler, options: options, fallback: fallback)
    }
}

extension Publishers {
    /// A publisher that switches to a fallback publisher when its upstream stays silent for an interval.
    ///
    /// ```swift
    /// let quotes = Publishers.TimeoutFallback(upstream: live, interval: .seconds(5), scheduler: DispatchQueue.main,
    ///                                          options: nil, fallback: cached)
    /// ```
    ///
    /// **Demand:** see ``Publisher/timeout(_:scheduler:options:fallback:)``.
    /// **Thread safety:** see ``Publisher/timeout(_:scheduler:options:fallback:)``.
    public struct TimeoutFallback<Upstream: Publisher, Context: Scheduler, Fallback: Publisher>: Publisher
    where Fallback.Output == Upstream.Output, Fallback.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher watched for silence.
        public let upstream: Upstream
        /// The longest silence allowed.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler that runs the timer.
        public let scheduler: Context
        /// Options for the scheduler.
        public let options: Context.SchedulerOptions?
        /// The publisher that takes over after a timeout.
        public let fallback: Fallback

        /// Creates the publisher.
        public init(
            upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?, fallback: Fallback
        ) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.fallback = fallback
        }

        /// Attaches the subscriber to the composition `mapError` → `timeout` → `catch`.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fallback = self.fallback
            upstream
                .mapError { TimeoutOutcome.failure($0) }
                .timeout(interval, scheduler: scheduler, options: options) { TimeoutOutcome<Failure>.timedOut }
                .catch { outcome -> AnyPublisher<Output, Failure> in
                    switch outcome {
                    case .timedOut: fallback.eraseToAnyPublisher()
                    case .failure(let error): Fail(error: error).eraseToAnyPublisher()
                    }
                }
                .subscribe(subscriber)
        }
    }
}
