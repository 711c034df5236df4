import UntangleSync

extension Publisher {
    /// Collects elements by a given time-grouping strategy, and emits a single array of the collection.
    ///
    /// `.byTime(scheduler, interval)` delivers, every `interval` (a repeating timer on `scheduler`, started when the
    /// upstream's subscription arrives), the values received since the previous group; an interval with no values
    /// delivers nothing. `.byTimeOrCount(scheduler, interval, count)` also cuts a group as soon as it holds `count`
    /// values; the timer keeps its own period (it is not restarted by a group cut by count). When the upstream
    /// finishes, the values collected so far are delivered as a last (possibly shorter) group, then `.finished`; if
    /// it fails, they are discarded and the failure is delivered (after the groups already cut that the subscriber
    /// has demand for).
    ///
    /// ```swift
    /// let cancellable = logLines
    ///     .collect(.byTimeOrCount(DispatchQueue.main, .seconds(1), 100))
    ///     .sink { upload(batch: $0) }
    /// ```
    ///
    /// - Precondition: the interval is positive and `count` is at least 1.
    ///
    /// **Demand:** as Apple's Combine (since iOS 13.3): `.byTime` asks the upstream for `.max(1)` at each request of
    /// the subscriber and for one more after each value (`.max(1)` returned from `receive(_:)`), so values keep
    /// coming one at a time; `.byTimeOrCount` asks for `count * n` values when the subscriber requests `n` groups,
    /// and for `count * m` when it returns `.max(m)` from a group cut by count. Demand returned from a group cut by
    /// the timer counts for the subscriber but asks the upstream for nothing. Groups beyond the subscriber's demand
    /// wait for it; `.finished` follows the last group without needing demand.
    /// **Thread safety:** groups and completions are delivered on the scheduler only, never from the thread that
    /// sends the upstream's values or completion, nor from a `request`: a group cut by count, a waiting group the
    /// subscriber now has demand for, and the completion are scheduled with `schedule(options:)`; a timer group is
    /// delivered from the timer's action. The subscriber sees one signal at a time, in the order the groups were
    /// cut. `request`/`cancel` may be called from any thread; `cancel()` stops the timer, and no delivery starts
    /// after it returns.
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

/// The subscriber `collect(_:options:)` gives its upstream and the subscription it gives its downstream. Decisions
/// live in ``CollectByTimeStateMachine`` (under one lock); this class acts on them after unlocking: it schedules the
/// drains, runs the mover's loop on the scheduler, and makes the upstream requests.
///
/// **Demand:** see ``Publisher/collect(_:options:)``.
/// **Thread safety:** see ``Publisher/collect(_:options:)``.
private final class CollectByTimeSubscription<Downstream: Subscriber, Context: Scheduler, Value>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
where Downstream.Input == [Value] {
    // @unchecked Sendable: mutable state lives in `state`, a LockedBox.
    typealias Input = Value
    typealias Failure = Downstream.Failure
    typealias Machine = CollectByTimeStateMachine<Value, Failure, Downstream>

    private let state: LockedBox<Machine>
    private let scheduler: Context
    private let interval: Context.SchedulerTimeType.Stride
    private let options: Context.SchedulerOptions?

    init(
        downstream: Downstream, scheduler: Context, interval: Context.SchedulerTimeType.Stride, count: Int?,
        options: Context.SchedulerOptions?
    ) {
        state = LockedBox(tracking: Machine(downstream: downstream, count: count))
        self.scheduler = scheduler
        self.interval = interval
        self.options = options
    }

    func receive(subscription: Subscription) {
        guard let downstream = state.withCriticalSection({ $0.subscribed(subscription) }) else {
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
        // This thread is the mover while the downstream receives its subscription: a tick or a drain arriving
        // meanwhile leaves its group waiting, and the drain is scheduled once the subscription is handed over.
        CalloutCheck.assertNoLockHeld("CollectByTime passing on its subscription")
        downstream.receive(subscription: self)
        if state.withCriticalSection({ $0.handedOver() }) { scheduleDrain() }
    }

    func receive(_ input: Value) -> Subscribers.Demand {
        let (demand, mustSchedule) = state.withCriticalSection { $0.receiveValue(input) }
        if mustSchedule { scheduleDrain() }
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let ending = state.withCriticalSection({ $0.receiveCompletion(completion) }) else { return }
        CalloutCheck.assertNoLockHeld("CollectByTime stopping its timer")
        ending.timer?.cancel()
        withExtendedLifetime(ending.dropped) {}
        if ending.scheduleDrain { scheduleDrain() }
    }

    // On the scheduler.
    private func tick() {
        if state.withCriticalSection({ $0.tick() }) { move() }
    }

    // Groups and completions reach the downstream through the scheduler only, never from the thread that sent the
    // upstream's value or completion, or made the request (Apple's order since iOS 13.3). The scheduled action holds
    // this subscription (never the subscriber) until it runs; after a cancel it finds nothing to do.
    private func scheduleDrain() {
        CalloutCheck.assertNoLockHeld("CollectByTime scheduling a delivery")
        scheduler.schedule(options: options) {
            if self.state.withCriticalSection({ $0.drainStarts() }) { self.move() }
        }
    }

    // The mover's loop: one thread at a time hands waiting groups to the downstream, in order, one per critical
    // section (so a `cancel()` that returned stops it before the next group). A request or a group arriving while it
    // runs only changes the state; this loop picks it up.
    private func move() {
        var returned = Subscribers.Demand.none
        var lastByCount = false
        while true {
            let (step, refill) = state.withCriticalSection {
                $0.nextStep(returned: returned, lastByCount: lastByCount)
            }
            if let (subscription, demand) = refill {
                CalloutCheck.assertNoLockHeld("CollectByTime requesting upstream")
                subscription.request(demand)
            }
            switch step {
            case .deliver(let downstream, let group, let byCount):
                CalloutCheck.assertNoLockHeld("CollectByTime delivering a group")
                returned = downstream.receive(group)
                lastByCount = byCount
            case .complete(let downstream, let completion, let discarded):
                withExtendedLifetime(discarded) {}
                CalloutCheck.assertNoLockHeld("CollectByTime delivering its completion")
                downstream.receive(completion: completion)
                return
            case .stop:
                return
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let (upstream, mustSchedule) = state.withCriticalSection { $0.request(demand) }
        if let (subscription, upstreamDemand) = upstream {
            CalloutCheck.assertNoLockHeld("CollectByTime requesting upstream")
            subscription.request(upstreamDemand)
        }
        if mustSchedule { scheduleDrain() }
    }

    func cancel() {
        guard let cancellation = state.withCriticalSection({ $0.cancel() }) else { return }
        CalloutCheck.assertNoLockHeld("CollectByTime cancelling upstream")
        cancellation.timer?.cancel()
        cancellation.upstream?.cancel()
        withExtendedLifetime(cancellation.released) {}
    }

    var description: String { "CollectByTime" }
}
