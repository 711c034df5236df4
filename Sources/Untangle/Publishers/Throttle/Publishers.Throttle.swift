import UntangleSync

extension Publisher {
    /// Publishes either the most-recent or first element published by the upstream publisher in the specified time
    /// interval.
    ///
    /// The first value is delivered at once (on the scheduler); after each delivery, the next one waits until
    /// `interval` has passed since it. While a value waits, newer values replace it (`latest == true`) or are
    /// discarded (`latest == false`). A completion arriving while a value waits follows that value; otherwise it is
    /// delivered at once, on the scheduler.
    ///
    /// ```swift
    /// let cancellable = scrollOffsets
    ///     .throttle(for: .milliseconds(100), scheduler: DispatchQueue.main, latest: true)
    ///     .sink { updateHeader(for: $0) }
    /// ```
    ///
    /// **Demand:** the upstream is asked for `.unlimited`; a value arriving while the subscriber has no outstanding
    /// demand is discarded.
    /// **Thread safety:** values and completion are delivered on the scheduler, one at a time. `request`/`cancel` may
    /// be called from any thread; once `cancel()` returns, the waiting value (if any) is never delivered.
    public func throttle<S: Scheduler>(for interval: S.SchedulerTimeType.Stride, scheduler: S, latest: Bool)
        -> Publishers.Throttle<Self, S>
    {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}

extension Publishers {
    /// A publisher that publishes either the most-recent or first element published by the upstream publisher in a
    /// specified time interval.
    ///
    /// ```swift
    /// let calm = Publishers.Throttle(upstream: subject, interval: .seconds(1), scheduler: DispatchQueue.main,
    ///                                latest: false)
    /// ```
    ///
    /// **Demand:** `.unlimited` upstream; see ``Publisher/throttle(for:scheduler:latest:)``.
    /// **Thread safety:** see ``Publisher/throttle(for:scheduler:latest:)``.
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The interval in which to find and emit the most recent element.
        public let interval: Context.SchedulerTimeType.Stride

        /// The scheduler on which to publish elements.
        public let scheduler: Context

        /// A Boolean value indicating whether to publish the most recent element.
        public let latest: Bool

        /// Creates a publisher that publishes either the most-recent or first element published by the upstream
        /// publisher in a specified time interval.
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                ThrottleSubscription(downstream: subscriber, interval: interval, scheduler: scheduler, latest: latest))
        }
    }
}

/// The subscriber `throttle` gives its upstream and the subscription it gives its downstream.
///
/// **Demand:** see ``Publisher/throttle(for:scheduler:latest:)``.
/// **Thread safety:** see ``Publisher/throttle(for:scheduler:latest:)``.
private final class ThrottleSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    // @unchecked Sendable: mutable state lives in `state` (a LockedBox) and the emitter (its own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure
    typealias Completion = Subscribers.Completion<Failure>
    typealias Machine = ThrottleStateMachine<Input, Completion, Context.SchedulerTimeType>

    private let state: LockedBox<Machine>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let interval: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let latest: Bool

    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
        let state = LockedBox(tracking: Machine())
        self.state = state
        // The demand is counted by the state machine (as Apple's); the emitter only serializes, so it has all.
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                state.withCriticalSection { $0.addReturnedDemand(more) }
            },
            policy: .unbounded)
        emitter.request(.unlimited)
        self.interval = interval
        self.scheduler = scheduler
        self.latest = latest
        // Apple's operator reads the clock when it is created (and at every upstream event).
        CalloutCheck.assertNoLockHeld("Throttle reading the scheduler's clock")
        _ = scheduler.now
    }

    // As Apple's: the upstream is asked for `.unlimited` before the downstream receives its subscription.
    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.isSubscribed == false }) else {
            CalloutCheck.assertNoLockHeld("Throttle cancelling an unwanted upstream subscription")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("Throttle reading the scheduler's clock")
        let now = scheduler.now
        guard state.withCriticalSection({ $0.receiveSubscription(subscription, now: now) }) else {
            CalloutCheck.assertNoLockHeld("Throttle cancelling an unwanted upstream subscription")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("Throttle requesting upstream")
        subscription.request(.unlimited)
        emitter.start(subscription: self)
    }

    // The clock is read with no lock held, after checking that the stream runs (as Apple's reads it only then); the
    // decision is taken under the lock with that reading. The scheduled emission holds the subscription strongly
    // until it runs (Apple's holds it weakly): once the upstream has finished and released it, and the subscriber
    // keeps no reference either, the waiting value and completion must still be delivered. `cancel()` drops the
    // downstream and the upstream at once, so a scheduled emission keeps only this inert object alive.
    func receive(_ input: Input) -> Subscribers.Demand {
        guard state.withCriticalSection({ $0.isSubscribed }) else { return .none }
        CalloutCheck.assertNoLockHeld("Throttle reading the scheduler's clock")
        let now = scheduler.now
        let decision = state.withCriticalSection {
            $0.receiveValue(input, now: now, interval: interval, latest: latest)
        }
        switch decision {
        case .none(let released):
            withExtendedLifetime(released) {}
        case .schedule(let date):
            CalloutCheck.assertNoLockHeld("Throttle scheduling an emission")
            if let date {
                scheduler.schedule(after: date) { self.emit() }
            } else {
                scheduler.schedule { self.emit() }
            }
        }
        return .none
    }

    // The emission decides under the lock (the waiting value, the completion behind it) and delivers through the
    // emitter, whose own check makes an emission racing `cancel()` deliver nothing once `cancel()` has returned.
    private func emit() {
        let (value, completion, readClock) = state.withCriticalSection { $0.emissionFired() }
        if readClock {
            CalloutCheck.assertNoLockHeld("Throttle reading the scheduler's clock")
            let now = scheduler.now
            state.withCriticalSection { $0.emitted(at: now) }
        }
        if let value {
            emitter.offer(value)
        }
        if let completion {
            emitter.complete(completion, order: .afterQueuedValues)
        }
    }

    func receive(completion: Completion) {
        guard state.withCriticalSection({ $0.isSubscribed }) else { return }
        CalloutCheck.assertNoLockHeld("Throttle reading the scheduler's clock")
        let now = scheduler.now
        guard state.withCriticalSection({ $0.receiveCompletion(completion, now: now) }) else { return }
        CalloutCheck.assertNoLockHeld("Throttle scheduling its completion")
        scheduler.schedule { self.emit() }
    }

    /// As Apple's: a zero request is ignored.
    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        state.withCriticalSection { $0.addDemand(demand) }
    }

    func cancel() {
        let cancelled = state.withCriticalSection({ $0.cancel() })
        // The emitter in every case: a completion already handed to it (behind values another thread is still
        // delivering) must not reach the downstream once cancel() returned. Cancelling it twice is harmless.
        emitter.cancel()
        guard let cancelled else { return }
        withExtendedLifetime(cancelled.pending) {}
        CalloutCheck.assertNoLockHeld("Throttle cancelling upstream")
        cancelled.upstream.cancel()
    }

    var description: String { "Throttle" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }
}
