import UntangleSync

extension Publisher {
    /// Publishes elements only after a specified time interval elapses between events.
    ///
    /// Each upstream value restarts a `dueTime` countdown on `scheduler`; when the countdown ends with no newer
    /// value, the latest value is delivered on the scheduler. Values replaced during the countdown are discarded.
    /// When the upstream completes, the completion is delivered on the scheduler at once and a value still counting
    /// down is discarded (as Apple's Combine does).
    ///
    /// ```swift
    /// let cancellable = searchField.textChanges
    ///     .debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
    ///     .sink { search($0) }
    /// ```
    ///
    /// **Demand:** the upstream is asked for `.unlimited`; a value whose quiet period ends while the subscriber has no
    /// outstanding demand is dropped.
    /// **Thread safety:** values and completion are delivered on the scheduler, one at a time. `request`/`cancel` may
    /// be called from any thread; once `cancel()` returns, no countdown still running delivers anything.
    public func debounce<S: Scheduler>(
        for dueTime: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that publishes elements only after a specified time interval elapses between events.
    ///
    /// ```swift
    /// let settled = Publishers.Debounce(upstream: subject, dueTime: .seconds(1), scheduler: DispatchQueue.main,
    ///                                   options: nil)
    /// ```
    ///
    /// **Demand:** `.unlimited` upstream; see ``Publisher/debounce(for:scheduler:options:)``.
    /// **Thread safety:** see ``Publisher/debounce(for:scheduler:options:)``.
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The amount of time the publisher should wait before publishing an element.
        public let dueTime: Context.SchedulerTimeType.Stride

        /// The scheduler on which this publisher delivers elements.
        public let scheduler: Context

        /// Scheduler options that customize this publisher's delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that publishes elements only after a specified time interval elapses between events.
        public init(
            upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?
        ) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                DebounceSubscription(downstream: subscriber, dueTime: dueTime, scheduler: scheduler, options: options))
        }
    }
}

/// The subscriber `debounce` gives its upstream and the subscription it gives its downstream.
///
/// **Demand:** see ``Publisher/debounce(for:scheduler:options:)``.
/// **Thread safety:** see ``Publisher/debounce(for:scheduler:options:)``.
private final class DebounceSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, @unchecked Sendable
{
    // @unchecked Sendable: mutable state lives in `state` (a LockedBox) and the emitter (its own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state = LockedBox(tracking: DebounceStateMachine<Input>())
    private let emitter: Emitter<Downstream>
    private let dueTime: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(
        downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
        options: Context.SchedulerOptions?
    ) {
        // The emitter's own demand accounting is the debounce's: a due value without demand is dropped there.
        emitter = Emitter(downstream: downstream, policy: .dropWithoutDemand)
        self.dueTime = dueTime
        self.scheduler = scheduler
        self.options = options
    }

    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.receiveSubscription(subscription) }) else {
            CalloutCheck.assertNoLockHeld("Debounce cancelling an unwanted upstream subscription")
            subscription.cancel()
            return
        }
        emitter.start(subscription: self)
        CalloutCheck.assertNoLockHeld("Debounce requesting upstream")
        subscription.request(.unlimited)
    }

    // The firing holds the subscription weakly: a cancelled debounce is not kept alive by its countdowns. At firing
    // time the generation check under the lock decides; the emitter's own check then makes a firing that races
    // `cancel()` deliver nothing once `cancel()` has returned.
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let accepted = state.withCriticalSection({ $0.receiveValue(input) }) else { return .none }
        withExtendedLifetime(accepted.replaced) {}
        let generation = accepted.generation
        CalloutCheck.assertNoLockHeld("Debounce scheduling its countdown")
        scheduler.schedule(
            after: scheduler.now.advanced(by: dueTime), tolerance: scheduler.minimumTolerance, options: options
        ) { [weak self] in
            self?.fire(generation: generation)
        }
        return .none
    }

    private func fire(generation: Int) {
        guard let value = state.withCriticalSection({ $0.fire(generation: generation) }) else { return }
        emitter.offer(value)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let closed = state.withCriticalSection({ $0.close() }) else { return }
        withExtendedLifetime(closed) {}
        let emitter = self.emitter
        CalloutCheck.assertNoLockHeld("Debounce scheduling its completion")
        scheduler.schedule(options: options) {
            emitter.complete(completion, order: .afterQueuedValues)
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
    }

    func cancel() {
        guard let closed = state.withCriticalSection({ $0.close() }) else {
            emitter.cancel()
            return
        }
        emitter.cancel()
        withExtendedLifetime(closed.dropped) {}
        if case .subscribed(let subscription) = closed.upstream {
            CalloutCheck.assertNoLockHeld("Debounce cancelling upstream")
            subscription.cancel()
        }
    }

    var description: String { "Debounce" }
}
