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
    /// **Demand:** every request (`.none` included) is forwarded upstream, on the scheduler; a request already
    /// scheduled when the subscriber cancels still reaches the upstream, before the cancel. The demand the subscriber
    /// returns from `receive(_:)` goes straight back to the upstream, as in Combine.
    /// **Thread safety:** the subscriber sees one signal at a time: on a concurrent queue the upstream may start
    /// sending before `receive(subscription:)` has returned; those signals wait and follow it. `request`/`cancel` may
    /// be called from any thread and return at once; once `cancel()` returns nothing more is delivered and the
    /// subscriber is released, and the upstream's `cancel()` follows on the scheduler. A `cancel()` that comes before
    /// the upstream's subscription arrived makes that subscription be ignored (not passed on, not cancelled), as in
    /// Combine.
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
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    // @unchecked Sendable: mutable state lives in `state`, a LockedBox.
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state: LockedBox<SubscribeOnStateMachine<Downstream>>
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        state = LockedBox(tracking: SubscribeOnStateMachine(downstream: downstream))
        self.scheduler = scheduler
        self.options = options
    }

    // The subscription callout runs with no lock held; signals another thread sends meanwhile are queued by the
    // state machine and delivered here, in order, once the callout returns (see SubscribeOnStateMachine). The demand
    // the subscriber returns for them was not returned to the upstream (it got `.none` when they were queued), so it
    // is requested upstream, on the scheduler.
    func receive(subscription: Subscription) {
        let thread = ThreadID.current
        switch state.withCriticalSection({ $0.receiveSubscription(subscription, on: thread) }) {
        case .ignore:
            return
        case .cancel:
            CalloutCheck.assertNoLockHeld("SubscribeOn cancelling an unwanted upstream subscription")
            subscription.cancel()
        case .deliver(let downstream):
            CalloutCheck.assertNoLockHeld("SubscribeOn passing on its subscription")
            downstream.receive(subscription: self)
            var more = Subscribers.Demand.none
            while let (signals, downstream) = state.withCriticalSection({ $0.subscriptionDelivered() }) {
                CalloutCheck.assertNoLockHeld("SubscribeOn delivering signals queued during the subscription")
                for signal in signals {
                    switch signal {
                    case .value(let value): more += downstream.receive(value)
                    case .completion(let completion): downstream.receive(completion: completion)
                    }
                }
            }
            if more > .none { request(more) }
        }
    }

    // Values are not moved: they reach the subscriber on the upstream's thread, and the demand it returns goes
    // straight back to the upstream (as in Combine), not through the scheduler.
    func receive(_ input: Input) -> Subscribers.Demand {
        let thread = ThreadID.current
        guard let downstream = state.withCriticalSection({ $0.receiveValue(input, on: thread) }) else { return .none }
        CalloutCheck.assertNoLockHeld("SubscribeOn delivering a value")
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let thread = ThreadID.current
        guard let downstream = state.withCriticalSection({ $0.receiveCompletion(completion, on: thread) }) else {
            return
        }
        CalloutCheck.assertNoLockHeld("SubscribeOn delivering the completion")
        downstream.receive(completion: completion)
    }

    // As in Combine, every request (`.none` included) is forwarded, on the scheduler, while the upstream is live; a
    // request already scheduled when `cancel()` comes still reaches the upstream, before the scheduled cancel.
    func request(_ demand: Subscribers.Demand) {
        guard let subscription = state.withCriticalSection({ $0.subscriptionForRequest() }) else { return }
        CalloutCheck.assertNoLockHeld("SubscribeOn scheduling a request")
        scheduler.schedule(options: options) {
            subscription.request(demand)
        }
    }

    // The subscriber is released at once (outside the lock); the upstream's cancel follows on the scheduler.
    func cancel() {
        let (subscription, released) = state.withCriticalSection { $0.cancel() }
        withExtendedLifetime(released) {}
        guard let subscription else { return }
        CalloutCheck.assertNoLockHeld("SubscribeOn scheduling the upstream's cancel")
        scheduler.schedule(options: options) {
            subscription.cancel()
        }
    }

    var description: String { "SubscribeOn" }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }
}
