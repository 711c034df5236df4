import UntangleSync

extension Publisher {
    /// Collects elements by a given time-grouping strategy, and emits a single array of the collection.
    ///
    /// `.byTime(scheduler, interval)` delivers, every `interval` (a repeating timer on `scheduler`, started when the
    /// upstream's subscription arrives), the values received since the previous group; an interval with no values
    /// delivers nothing. `.byTimeOrCount(scheduler, interval, count)` also cuts a group as soon as it holds `count`
    /// values; the timer keeps its own period (it is not restarted by a group cut by count). When the upstream
    /// finishes, the values collected so far are delivered as a last (possibly shorter) group, then `.finished`; if
    /// it fails, they are discarded and the failure is delivered.
    ///
    /// ```swift
    /// let cancellable = logLines
    ///     .collect(.byTimeOrCount(DispatchQueue.main, .seconds(1), 100))
    ///     .sink { upload(batch: $0) }
    /// ```
    ///
    /// - Precondition: the interval is positive and `count` is at least 1.
    ///
    /// **Demand:** `.byTime` asks the upstream for `.unlimited` at the subscriber's first request; `.byTimeOrCount`
    /// asks for `count * n` values when the subscriber requests `n` groups (as Apple documents). Groups beyond the
    /// subscriber's demand wait for it.
    /// **Thread safety:** groups cut by the timer are delivered on the scheduler; groups cut by count, the last group
    /// and the completion on the upstream's thread. The subscriber sees one signal at a time either way; a timer group
    /// and a count group cut at the same moment on different threads may reach it in either order.
    /// `request`/`cancel` may be called from any thread; `cancel()` stops the timer.
    public func collect<S: Scheduler>(
        _ strategy: Publishers.TimeGroupingStrategy<S>, options: S.SchedulerOptions? = nil
    )
        -> Publishers.CollectByTime<Self, S>
    {
        Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
    }
}

extension Publishers {
    /// A publisher that buffers and periodically publishes its items.
    ///
    /// ```swift
    /// let batches = Publishers.CollectByTime(upstream: subject, strategy: .byTime(DispatchQueue.main, .seconds(1)),
    ///                                        options: nil)
    /// ```
    ///
    /// **Demand:** see ``Publisher/collect(_:options:)``.
    /// **Thread safety:** see ``Publisher/collect(_:options:)``.
    public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: arrays of the upstream's values.
        public typealias Output = [Upstream.Output]

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// The strategy with which to collect and publish elements.
        public let strategy: Publishers.TimeGroupingStrategy<Context>

        /// `Scheduler` options to use for the strategy.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that buffers and periodically publishes its items.
        public init(
            upstream: Upstream, strategy: Publishers.TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?
        ) {
            self.upstream = upstream
            self.strategy = strategy
            self.options = options
        }

        /// Attaches the subscriber.
        ///
        /// - Precondition: the strategy's interval is positive and its count (if any) is at least 1.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Upstream.Failure {
            let scheduler: Context
            let interval: Context.SchedulerTimeType.Stride
            let count: Int?
            switch strategy {
            case .byTime(let context, let stride):
                (scheduler, interval, count) = (context, stride, nil)
            case .byTimeOrCount(let context, let stride, let maximum):
                precondition(maximum >= 1, "collect(.byTimeOrCount): the count must be at least 1, got \(maximum)")
                (scheduler, interval, count) = (context, stride, maximum)
            }
            precondition(interval > .zero, "collect(_:options:): the time interval must be positive, got \(interval)")
            upstream.subscribe(
                CollectByTimeSubscription(
                    downstream: subscriber, scheduler: scheduler, interval: interval, count: count, options: options))
        }
    }
}

/// The subscriber `collect(_:options:)` gives its upstream and the subscription it gives its downstream.
///
/// **Demand:** see ``Publisher/collect(_:options:)``.
/// **Thread safety:** see ``Publisher/collect(_:options:)``.
private final class CollectByTimeSubscription<Downstream: Subscriber, Context: Scheduler, Value>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
where Downstream.Input == [Value] {
    // @unchecked Sendable: mutable state lives in `state` (a LockedBox) and the emitter (its own lock).
    typealias Input = Value
    typealias Failure = Downstream.Failure

    private let state: LockedBox<CollectByTimeStateMachine<Value>>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let scheduler: Context
    private let interval: Context.SchedulerTimeType.Stride
    private let options: Context.SchedulerOptions?

    init(
        downstream: Downstream, scheduler: Context, interval: Context.SchedulerTimeType.Stride, count: Int?,
        options: Context.SchedulerOptions?
    ) {
        let state = LockedBox(tracking: CollectByTimeStateMachine<Value>(count: count))
        self.state = state
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                Self.requestUpstream(for: more, state: state)
            },
            policy: .unbounded)
        self.scheduler = scheduler
        self.interval = interval
        self.options = options
    }

    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.receiveSubscription(subscription) }) else {
            CalloutCheck.assertNoLockHeld("CollectByTime cancelling an unwanted upstream subscription")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("CollectByTime starting its timer")
        // The timer holds the subscription weakly; the subscription holds the timer's cancellable, which stops the
        // timer when cancelled or released (always outside the lock).
        let timer = scheduler.schedule(
            after: scheduler.now.advanced(by: interval), interval: interval, tolerance: scheduler.minimumTolerance,
            options: options
        ) { [weak self] in
            self?.tick()
        }
        if let late = state.withCriticalSection({ $0.timerStarted(timer) }) {
            CalloutCheck.assertNoLockHeld("CollectByTime stopping a timer started too late")
            late.cancel()
        }
        emitter.start(subscription: self)
    }

    func receive(_ input: Value) -> Subscribers.Demand {
        if let group = state.withCriticalSection({ $0.receiveValue(input) }) {
            emitter.offer(group)
        }
        return .none
    }

    private func tick() {
        if let group = state.withCriticalSection({ $0.tick() }) {
            emitter.offer(group)
        }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let finished: Bool
        if case .finished = completion { finished = true } else { finished = false }
        guard let ending = state.withCriticalSection({ $0.end(finished: finished) }) else { return }
        stop(ending)
        if let group = ending.group {
            emitter.offer(group)
        }
        emitter.complete(completion, order: finished ? .afterQueuedValues : .afterDemandedValues)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        Self.requestUpstream(for: demand, state: state)
    }

    func cancel() {
        guard let ending = state.withCriticalSection({ $0.end(finished: false) }) else {
            emitter.cancel()
            return
        }
        emitter.cancel()
        stop(ending)
        if case .subscribed(let subscription) = ending.upstream {
            CalloutCheck.assertNoLockHeld("CollectByTime cancelling upstream")
            subscription.cancel()
        }
    }

    private func stop(_ ending: CollectByTimeStateMachine<Value>.Ending) {
        CalloutCheck.assertNoLockHeld("CollectByTime stopping its timer")
        ending.timer?.cancel()
    }

    private static func requestUpstream(
        for demand: Subscribers.Demand, state: LockedBox<CollectByTimeStateMachine<Value>>
    ) {
        guard let (subscription, upstreamDemand) = state.withCriticalSection({ $0.upstreamRequest(for: demand) }) else {
            return
        }
        CalloutCheck.assertNoLockHeld("CollectByTime requesting upstream")
        subscription.request(upstreamDemand)
    }

    var description: String { "CollectByTime" }
}
