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
    // @unchecked Sendable: mutable state lives in the shell (a LockedBox and the emitter's own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure
    typealias Completion = Subscribers.Completion<Failure>
    typealias Machine = ThrottleStateMachine<Input, Completion, Context.SchedulerTimeType>

    private let shell: ScheduledShell<Downstream, Machine, Context>
    private let interval: Context.SchedulerTimeType.Stride
    private let latest: Bool

    init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
        shell = ScheduledShell(downstream: downstream, machine: Machine(), scheduler: scheduler, options: nil)
        self.interval = interval
        self.latest = latest
        // Apple's operator reads the clock when it is created (and at every upstream event).
        _ = shell.now
    }

    // As Apple's: the upstream is asked for `.unlimited` before the downstream receives its subscription.
    func receive(subscription: Subscription) {
        guard shell.withCriticalSection({ $0.isSubscribed == false }) else {
            shell.refuse(subscription)
            return
        }
        let now = shell.now
        guard shell.withCriticalSection({ $0.receiveSubscription(subscription, now: now) }) else {
            shell.refuse(subscription)
            return
        }
        shell.request(.unlimited, from: subscription)
        shell.start(subscription: self)
    }

    // The clock is read with no lock held, after checking that the stream runs (as Apple's reads it only then); the
    // decision is taken under the lock with that reading. The scheduled emission holds the subscription strongly
    // until it runs (Apple's holds it weakly): once the upstream has finished and released it, and the subscriber
    // keeps no reference either, the waiting value and completion must still be delivered. `cancel()` drops the
    // downstream and the upstream at once, so a scheduled emission keeps only this inert object alive.
    func receive(_ input: Input) -> Subscribers.Demand {
        guard shell.withCriticalSection({ $0.isSubscribed }) else { return .none }
        let now = shell.now
        let (interval, latest) = (self.interval, self.latest)
        let decision = shell.withCriticalSection {
            $0.receiveValue(input, now: now, interval: interval, latest: latest)
        }
        switch decision {
        case .none(let released):
            shell.perform(ScheduledEffects(replaced: released))
        case .schedule(let date):
            if let date {
                shell.schedule(after: date) { self.emit() }
            } else {
                shell.schedule(options: nil) { self.emit() }
            }
        }
        return .none
    }

    // The emission decides under the lock (the waiting value, the completion behind it) and delivers through the
    // emitter, whose own check makes an emission racing `cancel()` deliver nothing once `cancel()` has returned.
    private func emit() {
        let (value, completion, readClock) = shell.withCriticalSection { $0.emissionFired() }
        if readClock {
            let now = shell.now
            shell.withCriticalSection { $0.emitted(at: now) }
        }
        shell.perform(ScheduledEffects(value: value, completion: completion))
    }

    func receive(completion: Completion) {
        guard shell.withCriticalSection({ $0.isSubscribed }) else { return }
        let now = shell.now
        guard shell.withCriticalSection({ $0.receiveCompletion(completion, now: now) }) else { return }
        shell.schedule(options: nil) { self.emit() }
    }

    /// As Apple's: a zero request is ignored.
    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        shell.withCriticalSection { $0.addDemand(demand) }
    }

    func cancel() {
        shell.cancel { machine in
            machine.cancel().map { ScheduledEffects(replaced: $0.pending, upstream: $0.upstream) }
        }
    }

    var description: String { "Throttle" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }
}
