import UntangleSync

extension Publisher {
    /// Specifies the scheduler on which to perform subscribe, cancel, and request operations.
    ///
    /// In contrast with ``Publisher/receive(on:options:)``, which changes where the subscriber receives values,
    /// `subscribe(on:)` changes where the upstream receives messages: the upstream's `subscribe` runs on `scheduler`
    /// (so the subscriber's `receive(subscription:)` normally arrives from there), and every `request` and the
    /// `cancel` the subscriber makes are forwarded to the upstream from `scheduler`. Values and the completion are
    /// not moved: they arrive on whatever thread the upstream sends them.
    ///
    /// ```swift
    /// let cancellable = expensiveFileReader
    ///     .subscribe(on: DispatchQueue(label: "io"))   // the reading starts on the io queue
    ///     .receive(on: DispatchQueue.main)              // results arrive on the main queue
    ///     .sink { show($0) }
    /// ```
    ///
    /// **Demand:** every request is forwarded upstream, on the scheduler; demand the subscriber returns from
    /// `receive(_:)` is forwarded the same way.
    /// **Thread safety:** the subscriber sees one signal at a time (an emitter serializes them: on a concurrent queue
    /// the upstream may start sending before `receive(subscription:)` has returned). `request`/`cancel` may be called
    /// from any thread and return at once; once `cancel()` returns nothing more is delivered, and the upstream's
    /// `cancel()` follows on the scheduler.
    public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.SubscribeOn<Self, S>
    {
        Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that receives elements from an upstream publisher on a specific scheduler.
    ///
    /// ```swift
    /// let onIO = Publishers.SubscribeOn(upstream: reader, scheduler: DispatchQueue(label: "io"), options: nil)
    /// ```
    ///
    /// **Demand:** passed through unchanged, on the scheduler.
    /// **Thread safety:** see ``Publisher/subscribe(on:options:)``.
    public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The scheduler the publisher should use to receive elements.
        public let scheduler: Context

        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that receives elements from an upstream publisher on a specific scheduler.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber: the upstream is subscribed to on the scheduler.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            let inner = SubscribeOnSubscription(downstream: subscriber, scheduler: scheduler, options: options)
            let upstream = self.upstream
            CalloutCheck.assertNoLockHeld("SubscribeOn scheduling the upstream's subscribe")
            scheduler.schedule(options: options) {
                upstream.subscribe(inner)
            }
        }
    }
}

/// The subscriber `subscribe(on:)` gives its upstream and the subscription it gives its downstream.
///
/// **Demand:** see ``Publisher/subscribe(on:options:)``.
/// **Thread safety:** see ``Publisher/subscribe(on:options:)``.
private final class SubscribeOnSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, @unchecked Sendable
{
    // @unchecked Sendable: mutable state lives in `state` (a LockedBox) and the emitter (its own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state: LockedBox<SubscribeOnStateMachine>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        let state = LockedBox(tracking: SubscribeOnStateMachine())
        self.state = state
        self.scheduler = scheduler
        self.options = options
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                Self.forwardRequest(more, state: state, scheduler: scheduler, options: options)
            },
            policy: .unbounded)
    }

    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.receiveSubscription(subscription) }) else {
            CalloutCheck.assertNoLockHeld("SubscribeOn cancelling an unwanted upstream subscription")
            subscription.cancel()
            return
        }
        emitter.start(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        // The demand the subscriber returns goes upstream through the relay, on the scheduler.
        emitter.offer(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let released = state.withCriticalSection { $0.receiveCompletion() }
        withExtendedLifetime(released) {}
        emitter.complete(completion, order: .afterQueuedValues)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        Self.forwardRequest(demand, state: state, scheduler: scheduler, options: options)
    }

    func cancel() {
        let subscription = state.withCriticalSection { $0.cancel() }
        emitter.cancel()
        guard let subscription else { return }
        CalloutCheck.assertNoLockHeld("SubscribeOn scheduling the upstream's cancel")
        scheduler.schedule(options: options) {
            subscription.cancel()
        }
    }

    // The request is decided when it runs on the scheduler: a request overtaken by cancel (or by the completion)
    // goes nowhere.
    private static func forwardRequest(
        _ demand: Subscribers.Demand, state: LockedBox<SubscribeOnStateMachine>, scheduler: Context,
        options: Context.SchedulerOptions?
    ) {
        CalloutCheck.assertNoLockHeld("SubscribeOn scheduling a request")
        scheduler.schedule(options: options) {
            guard let subscription = state.withCriticalSection({ $0.subscriptionForRequest() }) else { return }
            CalloutCheck.assertNoLockHeld("SubscribeOn requesting upstream")
            subscription.request(demand)
        }
    }

    var description: String { "SubscribeOn" }
}
