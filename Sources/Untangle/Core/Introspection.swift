import UntangleSync

/// Observes every subscription made while it is enabled: Combine's underscored debugging interface.
///
/// Conform a class, implement the events you care about (every method has an empty default), and call `enable()`.
/// While at least one introspection is enabled, `subscribe(_:)` wraps each subscriber (and the subscription it
/// receives) so that the enabled introspections are told before and after every signal. Subscriptions made while
/// none is enabled are not observed, even if one is enabled later.
///
/// ```swift
/// final class Logger: _Introspection {
///     func willReceive<S: Subscriber>(subscriber: S, input: S.Input) { print(subscriber, "<-", input) }
/// }
/// let logger = Logger()
/// logger.enable()
/// let cancellable = [1, 2].publisher.sink { _ in }   // logged
/// logger.disable()
/// ```
///
/// **Thread safety:** `enable()`, `disable()` and `isEnabled` may be called from any thread; the events are called
/// on the thread of the signal they report, with no Untangle lock held, and may come from several threads at once.
/// With nothing enabled, `subscribe(_:)` pays one atomic load.
public protocol _Introspection: AnyObject {
    /// A publisher is about to receive a subscriber.
    func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input

    /// A publisher has received a subscriber.
    func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input

    /// A subscriber is about to receive its subscription.
    func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription)

    /// A subscriber has received its subscription.
    func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription)

    /// A subscriber is about to receive a value.
    func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input)

    /// A subscriber has received a value and returned `resultingDemand`.
    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand)

    /// A subscriber is about to receive its completion.
    func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>)

    /// A subscriber has received its completion.
    func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>)

    /// Demand is about to be requested from a subscription.
    func willRequest(subscription: Subscription, _ demand: Subscribers.Demand)

    /// Demand has been requested from a subscription.
    func didRequest(subscription: Subscription, _ demand: Subscribers.Demand)

    /// A subscription is about to be cancelled.
    func willCancel(subscription: Subscription)

    /// A subscription has been cancelled.
    func didCancel(subscription: Subscription)
}

extension _Introspection {
    /// Does nothing.
    public func willReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {}

    /// Does nothing.
    public func didReceive<Upstream: Publisher, Downstream: Subscriber>(publisher: Upstream, subscriber: Downstream)
    where Upstream.Failure == Downstream.Failure, Upstream.Output == Downstream.Input {}

    /// Does nothing.
    public func willReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription) {}

    /// Does nothing.
    public func didReceive<Downstream: Subscriber>(subscriber: Downstream, subscription: Subscription) {}

    /// Does nothing.
    public func willReceive<Downstream: Subscriber>(subscriber: Downstream, input: Downstream.Input) {}

    /// Does nothing.
    public func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, input: Downstream.Input, resultingDemand: Subscribers.Demand
    ) {}

    /// Does nothing.
    public func willReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {}

    /// Does nothing.
    public func didReceive<Downstream: Subscriber>(
        subscriber: Downstream, completion: Subscribers.Completion<Downstream.Failure>
    ) {}

    /// Does nothing.
    public func willRequest(subscription: Subscription, _ demand: Subscribers.Demand) {}

    /// Does nothing.
    public func didRequest(subscription: Subscription, _ demand: Subscribers.Demand) {}

    /// Does nothing.
    public func willCancel(subscription: Subscription) {}

    /// Does nothing.
    public func didCancel(subscription: Subscription) {}

    /// Starts observing the subscriptions made from now on (enabling twice is the same as once).
    public func enable() {
        IntrospectionHooks.enable(self)
    }

    /// Stops observing; the events of this introspection stop at once, for every subscription.
    public func disable() {
        IntrospectionHooks.disable(self)
    }

    /// Whether this introspection is enabled.
    public var isEnabled: Bool {
        IntrospectionHooks.isEnabled(self)
    }
}

/// The enabled introspections: a list behind a lock, and the number of entries in an atomic word, which is all
/// that `subscribe(_:)` reads while none is enabled.
///
/// ```swift
/// if IntrospectionHooks.count.load() != 0 { ... }
/// ```
///
/// **Thread safety:** every member may be used from any thread; the handlers are copied out of the lock before any
/// of them is called.
@usableFromInline
enum IntrospectionHooks {
    /// How many introspections are enabled (changed under `handlers`' lock, read without it).
    @usableFromInline static let count = AtomicWord(0)

    /// Whether at least one introspection is enabled (one atomic load).
    @inlinable static var isActive: Bool { count.load() != 0 }
    // A LockedBox is safe to share; it is not declared Sendable because its value need not be. Not counted by
    // LiveObjects: it lives as long as the process.
    nonisolated(unsafe) static let handlers = LockedBox<[_Introspection]>([])

    static func enable(_ handler: _Introspection) {
        handlers.withCriticalSection { handlers in
            guard !handlers.contains(where: { $0 === handler }) else { return }
            handlers.append(handler)
            _ = count.exchange(handlers.count)
        }
    }

    static func disable(_ handler: _Introspection) {
        // The removed handler is released after unlocking (its deinit is user code).
        let removed = handlers.withCriticalSection { handlers -> _Introspection? in
            guard let index = handlers.firstIndex(where: { $0 === handler }) else { return nil }
            defer { _ = count.exchange(handlers.count) }
            return handlers.remove(at: index)
        }
        withExtendedLifetime(removed) {}
    }

    static func isEnabled(_ handler: _Introspection) -> Bool {
        handlers.withCriticalSection { $0.contains(where: { $0 === handler }) }
    }

    /// The enabled introspections, to call after this returns (empty while none is enabled: one atomic load).
    static var current: [_Introspection] {
        guard count.load() != 0 else { return [] }
        return handlers.withCriticalSection { $0 }
    }

    /// `subscribe(_:)` with introspection enabled: the publisher receives `subscriber` wrapped in a tap (unless it
    /// is one already: an operator passing its subscriber on), between the publisher events.
    @usableFromInline
    static func subscribe<Upstream: Publisher, Downstream: Subscriber>(_ subscriber: Downstream, to publisher: Upstream)
    where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
        let hooks = current
        CalloutCheck.assertNoLockHeld("introspection observing a subscribe")
        if let tap = subscriber as? IntrospectionSubscriberTapMarker {
            // An operator that hands its own subscriber on (`upstream.subscribe(subscriber)`): the publisher events
            // name the subscriber type-erased, as in Combine, and it is not wrapped twice.
            let erased = tap.erased as! AnySubscriber<Downstream.Input, Downstream.Failure>
            for hook in hooks { hook.willReceive(publisher: publisher, subscriber: erased) }
            publisher.receive(subscriber: subscriber)
            for hook in hooks { hook.didReceive(publisher: publisher, subscriber: erased) }
        } else {
            for hook in hooks { hook.willReceive(publisher: publisher, subscriber: subscriber) }
            publisher.receive(subscriber: IntrospectionSubscriberTap(subscriber))
            for hook in hooks { hook.didReceive(publisher: publisher, subscriber: subscriber) }
        }
    }
}

/// What lets `subscribe(_:)` recognise a subscriber that is already an introspection tap.
protocol IntrospectionSubscriberTapMarker {
    /// The tapped subscriber as an `AnySubscriber`.
    var erased: Any { get }
}

/// A subscriber observed by the enabled introspections: it reports every signal before and after passing it on,
/// and hands its subscriber an ``IntrospectionSubscriptionTap``. It has the subscriber's description and
/// identifier.
///
/// **Demand:** passed through unchanged.
/// **Thread safety:** immutable; the hooks are read per signal (disabling takes effect at once).
struct IntrospectionSubscriberTap<Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    IntrospectionSubscriberTapMarker
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream

    init(_ downstream: Downstream) {
        self.downstream = downstream
    }

    var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

    var erased: Any { AnySubscriber(downstream) }

    func receive(subscription: Subscription) {
        let hooks = IntrospectionHooks.current
        let tap = subscription as? IntrospectionSubscriptionTap ?? IntrospectionSubscriptionTap(subscription)
        for hook in hooks { hook.willReceive(subscriber: downstream, subscription: tap.subscription) }
        downstream.receive(subscription: tap)
        for hook in hooks { hook.didReceive(subscriber: downstream, subscription: tap.subscription) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let hooks = IntrospectionHooks.current
        for hook in hooks { hook.willReceive(subscriber: downstream, input: input) }
        let demand = downstream.receive(input)
        for hook in hooks { hook.didReceive(subscriber: downstream, input: input, resultingDemand: demand) }
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let hooks = IntrospectionHooks.current
        for hook in hooks { hook.willReceive(subscriber: downstream, completion: completion) }
        downstream.receive(completion: completion)
        for hook in hooks { hook.didReceive(subscriber: downstream, completion: completion) }
    }

    /// The subscriber's description.
    var description: String { String(describing: downstream) }
}

/// A subscription observed by the enabled introspections (handed to a tapped subscriber): it reports requests and
/// cancels before and after passing them on, and has the subscription's description and identifier.
///
/// **Demand:** passed through unchanged.
/// **Thread safety:** immutable.
struct IntrospectionSubscriptionTap: Subscription, CustomStringConvertible {
    let subscription: Subscription

    init(_ subscription: Subscription) {
        self.subscription = subscription
    }

    var combineIdentifier: CombineIdentifier { subscription.combineIdentifier }

    func request(_ demand: Subscribers.Demand) {
        let hooks = IntrospectionHooks.current
        for hook in hooks { hook.willRequest(subscription: subscription, demand) }
        subscription.request(demand)
        for hook in hooks { hook.didRequest(subscription: subscription, demand) }
    }

    func cancel() {
        let hooks = IntrospectionHooks.current
        for hook in hooks { hook.willCancel(subscription: subscription) }
        subscription.cancel()
        for hook in hooks { hook.didCancel(subscription: subscription) }
    }

    /// The subscription's description.
    var description: String { String(describing: subscription) }
}
