import UntangleSync

extension Publisher {
    /// Measures and emits the time interval between events received from an upstream publisher.
    ///
    /// Each upstream value is replaced by the time elapsed, on `scheduler`'s clock (its `now`), since the previous
    /// value, or, for the first value, since the upstream's subscription arrived. The scheduler is only read, never
    /// scheduled on: values arrive on the upstream's thread.
    ///
    /// ```swift
    /// let cancellable = taps
    ///     .measureInterval(using: DispatchQueue.main)
    ///     .sink { print("since the previous tap: \($0)") }
    /// ```
    ///
    /// **Demand:** requests pass through unchanged (one interval per upstream value); the demand the subscriber
    /// returns for an interval is requested from the upstream at once (as in Combine) rather than returned.
    /// **Thread safety:** values and completion are delivered on the upstream's thread, one at a time, with no lock
    /// held; `request`/`cancel` may be called from any thread. Once `cancel()` returns nothing more is delivered and
    /// the subscriber is released; a `cancel()` before the upstream's subscription arrived makes that subscription be
    /// ignored, as in Combine.
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

        /// Attaches the subscriber; the clock starts when the upstream's subscription arrives.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Upstream.Failure {
            upstream.subscribe(
                MeasureIntervalSubscription<Upstream, Context, S>(downstream: subscriber, scheduler: scheduler))
        }
    }
}

/// The subscriber `measureInterval(using:)` gives its upstream and the subscription it gives its downstream.
///
/// The phase (upstream subscription, downstream reference) is behind the lock, which `request` and `cancel` (from any
/// thread) race for. The previous instant is read and written only on the upstream's signal path (subscription, then
/// values), which the contract serializes, so it needs no lock.
///
/// **Demand:** see ``Publisher/measureInterval(using:options:)``.
/// **Thread safety:** see ``Publisher/measureInterval(using:options:)``.
private final class MeasureIntervalSubscription<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
where Downstream.Input == Context.SchedulerTimeType.Stride, Downstream.Failure == Upstream.Failure {
    // @unchecked Sendable: `phase` is a LockedBox; `last` is confined to the serialized upstream signal path.
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let phase: LockedBox<MeasureIntervalStateMachine<Downstream>>
    private let scheduler: Context
    private var last: Context.SchedulerTimeType?

    init(downstream: Downstream, scheduler: Context) {
        phase = LockedBox(tracking: MeasureIntervalStateMachine(downstream: downstream))
        self.scheduler = scheduler
    }

    func receive(subscription: Subscription) {
        switch phase.withCriticalSection({ $0.receiveSubscription(subscription) }) {
        case .ignore:
            return
        case .cancel:
            CalloutCheck.assertNoLockHeld("measureInterval cancelling an unwanted upstream subscription")
            subscription.cancel()
        case .deliver(let downstream):
            CalloutCheck.assertNoLockHeld("measureInterval reading the clock and passing on its subscription")
            last = scheduler.now
            downstream.receive(subscription: self)
        }
    }

    // As in Combine, the demand the subscriber returns is requested from the upstream right away (from inside this
    // call, with no lock held), and `.none` is returned.
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let (subscription, downstream) = phase.withCriticalSection({ $0.live }), let previous = last else {
            return .none
        }
        CalloutCheck.assertNoLockHeld("measureInterval reading the clock and delivering an interval")
        let now = scheduler.now
        last = now
        let more = downstream.receive(previous.distance(to: now))
        if more > .none {
            subscription.request(more)
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let downstream = phase.withCriticalSection { $0.receiveCompletion() }
        CalloutCheck.assertNoLockHeld("measureInterval passing on the completion")
        downstream?.receive(completion: completion)
    }

    // As in Combine, any demand (`.none` included) is forwarded while the upstream is live.
    func request(_ demand: Subscribers.Demand) {
        guard let (subscription, _) = phase.withCriticalSection({ $0.live }) else { return }
        CalloutCheck.assertNoLockHeld("measureInterval requesting upstream")
        subscription.request(demand)
    }

    func cancel() {
        guard let (upstream, downstream) = phase.withCriticalSection({ $0.cancel() }) else { return }
        withExtendedLifetime(downstream) {}
        guard let upstream else { return }
        CalloutCheck.assertNoLockHeld("measureInterval cancelling upstream")
        upstream.cancel()
    }

    var description: String { "MeasureInterval" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }
}
