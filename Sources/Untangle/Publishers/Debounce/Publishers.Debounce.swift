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
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    // @unchecked Sendable: mutable state lives in `state` (a LockedBox) and the emitter (its own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state: LockedBox<DebounceStateMachine<Input, Downstream>>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let dueTime: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(
        downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
        options: Context.SchedulerOptions?
    ) {
        let state = LockedBox(tracking: DebounceStateMachine<Input, Downstream>(downstream: downstream))
        self.state = state
        // The demand is counted by the state machine (as Apple's); the emitter only serializes, so it has all.
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in state.withCriticalSection { $0.addDemand(more) }
            },
            policy: .unbounded)
        emitter.request(.unlimited)
        self.dueTime = dueTime
        self.scheduler = scheduler
        self.options = options
    }

    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.receiveSubscription(subscription) }) != nil else {
            CalloutCheck.assertNoLockHeld("Debounce cancelling an unwanted upstream subscription")
            subscription.cancel()
            return
        }
        emitter.start(subscription: self)
        CalloutCheck.assertNoLockHeld("Debounce requesting upstream")
        subscription.request(.unlimited)
    }

    // Each value arms a repeating timer (as Apple's) for its generation, created with no lock held and stored under
    // the lock afterwards; if the generation was replaced or the stream ended meanwhile, the new timer is cancelled
    // at once. At firing time the generation check under the lock decides; the emitter's own check then makes a
    // firing that races `cancel()` deliver nothing once `cancel()` has returned. The timer holds the subscription
    // and the downstream strongly until the scheduler lets go of it, as Apple's does.
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let accepted = state.withCriticalSection({ $0.receiveValue(input) }) else { return .none }
        withExtendedLifetime(accepted.replaced) {}
        let generation = accepted.generation
        let downstream = accepted.downstream
        CalloutCheck.assertNoLockHeld("Debounce scheduling its countdown")
        let timer = scheduler.schedule(
            after: scheduler.now.advanced(by: dueTime), interval: dueTime, tolerance: scheduler.minimumTolerance,
            options: options
        ) { [self] in
            withExtendedLifetime(downstream) {
                fire(generation: generation)
            }
        }
        let unwanted = state.withCriticalSection { $0.timerArmed(timer, generation: generation) }
        CalloutCheck.assertNoLockHeld("Debounce cancelling replaced timers")
        unwanted?.cancel()
        for stale in accepted.stale {
            stale.cancel()
        }
        return .none
    }

    private func fire(generation: Int) {
        switch state.withCriticalSection({ $0.fire(generation: generation) }) {
        case .ignore(let timer):
            CalloutCheck.assertNoLockHeld("Debounce cancelling a stale timer")
            timer?.cancel()
        case .deliver(let value, let timer):
            CalloutCheck.assertNoLockHeld("Debounce cancelling its timer")
            timer?.cancel()
            if let value {
                emitter.offer(value)
            }
        }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let ended = state.withCriticalSection({ $0.end() }) else { return }
        withExtendedLifetime((ended.value, ended.downstream)) {}
        CalloutCheck.assertNoLockHeld("Debounce cancelling its timers")
        for timer in ended.timers {
            timer.cancel()
        }
        let emitter = self.emitter
        CalloutCheck.assertNoLockHeld("Debounce scheduling its completion")
        // As Apple's: scheduled without the operator's options.
        scheduler.schedule(options: nil) {
            emitter.complete(completion, order: .afterQueuedValues)
        }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withCriticalSection { $0.addDemand(demand) }
    }

    func cancel() {
        let ended = state.withCriticalSection({ $0.end() })
        // The emitter in every case: a completion already handed to it (behind values another thread is still
        // delivering) must not reach the downstream once cancel() returned. Cancelling it twice is harmless.
        emitter.cancel()
        guard let ended else { return }
        withExtendedLifetime((ended.value, ended.downstream)) {}
        CalloutCheck.assertNoLockHeld("Debounce cancelling its timers")
        for timer in ended.timers {
            timer.cancel()
        }
        CalloutCheck.assertNoLockHeld("Debounce cancelling upstream")
        ended.upstream.cancel()
    }

    var description: String { "Debounce" }

    var playgroundDescription: Any { description }

    // Apple's children: the downstream, the unused demand and the latest value (read under the lock).
    var customMirror: Mirror {
        let (downstream, demand, value) = state.withCriticalSection { ($0.downstream, $0.demand, $0.currentValue) }
        let downstreamChild: Any = downstream.map { $0 as Any } ?? (downstream as Any)
        let children: [Mirror.Child] = [
            ("downstream", downstreamChild), ("downstreamDemand", demand), ("currentValue", value as Any),
        ]
        return Mirror(self, children: children)
    }
}
