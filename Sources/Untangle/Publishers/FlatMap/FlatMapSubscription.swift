import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and `Publishers.FlatMap.receive(subscriber:)`
// `@inlinable`), so the client module specializes the subscription, the inners and the upstream's conduit for the
// concrete types instead of running generic code with runtime type lookups per value. The state machine is not
// generic and is not inlined.
/// The subscription of a flatMap: the subscriber it gives the upstream, the subscription it gives the downstream,
/// and the owner of one ``FlatMapInner`` per inner publisher. Every inner's values go through one ``Emitter``, so the
/// downstream sees one signal at a time however many threads the inners deliver on.
///
/// **Demand:** see ``FlatMapStateMachine``.
/// **Thread safety:** the upstream and the inners may deliver concurrently from any threads; `request` and `cancel`
/// may be called from any thread. Every decision is taken under the state lock and acted on after unlocking; the
/// lock is never held while calling the transform, an upstream, an inner or the downstream.
@usableFromInline
final class FlatMapSubscription<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
where
    NewPublisher.Output == Downstream.Input, NewPublisher.Failure == Downstream.Failure,
    Upstream.Failure == Downstream.Failure
{
    @usableFromInline typealias Input = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure

    @usableFromInline let state: LockedBox<FlatMapStateMachine>
    @usableFromInline let transform: (Upstream.Output) -> NewPublisher
    @usableFromInline let emitter: Emitter<DemandRelay<Downstream>>
    // See `receiveJust`: touched only on the upstream's serialized signal path. `@exclusivity(unchecked)`: no
    // run-time access check per value (a class `var` otherwise pays `swift_beginAccess` on every read).
    @exclusivity(unchecked) @usableFromInline var steadyJust = false

    @inlinable
    init(
        downstream: Downstream, maxPublishers: Subscribers.Demand,
        transform: @escaping (Upstream.Output) -> NewPublisher
    ) {
        let state = LockedBox(tracking: FlatMapStateMachine(maxPublishers: maxPublishers))
        self.state = state
        self.transform = transform
        // Demand the downstream returns goes to the inners, like requests. The closure captures the state, not the
        // subscription: the emitter must not keep the subscription alive, and a `[weak self]` capture would give
        // the subscription a weak-reference side table, which sends every retain and release of it (one pair per
        // value, as the upstream's emitter's downstream) down the runtime's slow path.
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { FlatMapSubscription.forward($0, state: state) },
            policy: .unbounded)
    }

    // MARK: Upstream

    @inlinable
    func receive(subscription: Subscription) {
        guard let maxPublishers = state.withCriticalSection({ $0.upstreamSubscribed(subscription) }) else {
            CalloutCheck.assertNoLockHeld("flatMap cancelling a second upstream subscription")
            subscription.cancel()
            return
        }
        emitter.start(subscription: self)
        // The downstream may have cancelled from inside receive(subscription:): then the upstream is already
        // cancelled and must not be asked for anything.
        let live = state.withCriticalSection { !$0.isTerminated }
        if live, maxPublishers > .none {
            CalloutCheck.assertNoLockHeld("flatMap requesting from its upstream")
            subscription.request(maxPublishers)
        }
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        if FlatMapSubscription.innersAreJust {
            return receiveJust(input)
        }
        guard let id = state.withCriticalSection({ $0.innerCreated() }) else { return .none }
        CalloutCheck.assertNoLockHeld("flatMap calling its transform")
        subscribeInner(transform(input), id: id)
        // More upstream demand is requested when an inner finishes (bounded maxPublishers) or was unlimited.
        return .none
    }

    @inlinable
    func subscribeInner(_ publisher: NewPublisher, id: Int) {
        publisher.subscribe(FlatMapInner(parent: self, id: id))
    }

    // MARK: Just inners

    /// Whether the inner publishers are `Just` (or `Just` with `setFailureType`): a constant, folded away when the
    /// client module specializes this class.
    @inlinable
    static var innersAreJust: Bool {
        NewPublisher.self == Just<Downstream.Input>.self
            || NewPublisher.self == Publishers.SetFailureType<Just<Downstream.Input>, Downstream.Failure>.self
    }

    @inlinable
    static func justOutput(_ publisher: NewPublisher) -> Downstream.Input {
        if let just = publisher as? Just<Downstream.Input> {
            return just.output
        }
        return (publisher as! Publishers.SetFailureType<Just<Downstream.Input>, Downstream.Failure>).upstream.output
    }

    // Performance: `flatMap { Just($0) }` without an inner subscription. Subscribing a `Just` costs two objects
    // (the inner subscriber and the Just's subscription) and four lock round-trips (created, subscribed, delivered,
    // finished); when the downstream has demand the Just would deliver at once and finish, so its value goes
    // straight to the emitter, exactly where the inner's delivery would have put it, after one transition of the
    // state machine (`justArrived`). Without demand the Just is subscribed as usual and waits, holding its slot.
    //
    // `steadyJust` (once demand and maxPublishers are both unlimited) skips even that transition: nothing it
    // decides can change any more except termination, and after termination (cancel or failure) the emitter is
    // already cancelled or completed, so it drops the value; the only difference is that the transform may run for
    // a value the upstream sends after the end, which a value racing the end could do anyway. `steadyJust` is read
    // and written only here, on the upstream's serialized signal path, so it needs no lock.
    @inlinable
    func receiveJust(_ input: Upstream.Output) -> Subscribers.Demand {
        var upstreamDemand = Subscribers.Demand.none
        if !steadyJust {
            switch state.withCriticalSection({ $0.justArrived() }) {
            case .ignore:
                return .none
            case .subscribe(let id):
                CalloutCheck.assertNoLockHeld("flatMap calling its transform")
                subscribeInner(transform(input), id: id)
                return .none
            case .deliver(let demand, let steady):
                upstreamDemand = demand
                steadyJust = steady
            }
        }
        CalloutCheck.assertNoLockHeld("flatMap calling its transform")
        let value = FlatMapSubscription.justOutput(transform(input))
        emitter.offer(value)
        return upstreamDemand
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        switch completion {
        case .finished:
            if state.withCriticalSection({ $0.upstreamFinished() }) {
                emitter.complete(.finished, order: .afterQueuedValues)
            }
        case .failure:
            fail(completion, cancelling: state.withCriticalSection { $0.terminate(upstreamFailed: true) })
        }
    }

    // MARK: Downstream

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        forward(demand)
    }

    @inlinable
    func forward(_ demand: Subscribers.Demand) {
        FlatMapSubscription.forward(demand, state: state)
    }

    @inlinable
    static func forward(_ demand: Subscribers.Demand, state: LockedBox<FlatMapStateMachine>) {
        let inners = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("flatMap forwarding demand to its inners")
        for inner in inners {
            inner.request(demand)
        }
    }

    @inlinable
    func cancel() {
        emitter.cancel()
        let subscriptions = state.withCriticalSection { $0.terminate() }
        CalloutCheck.assertNoLockHeld("flatMap cancelling its sources")
        for subscription in subscriptions ?? [] {
            subscription.cancel()
        }
    }

    // MARK: Inners

    @inlinable
    func inner(_ id: Int, finished completion: Subscribers.Completion<Downstream.Failure>) {
        switch completion {
        case .finished:
            let (action, released) = state.withCriticalSection { $0.innerFinished(id) }
            withExtendedLifetime(released) {}
            switch action {
            case .none:
                break
            case .requestOneMore(let upstream):
                CalloutCheck.assertNoLockHeld("flatMap requesting one more upstream value")
                upstream.request(.max(1))
            case .finish:
                emitter.complete(.finished, order: .afterQueuedValues)
            }
        case .failure:
            fail(completion, cancelling: state.withCriticalSection { $0.terminate(failedInner: id) })
        }
    }

    @inlinable
    func fail(_ completion: Subscribers.Completion<Downstream.Failure>, cancelling: [Subscription]?) {
        guard let subscriptions = cancelling else { return }
        CalloutCheck.assertNoLockHeld("flatMap cancelling its sources after a failure")
        for subscription in subscriptions {
            subscription.cancel()
        }
        emitter.complete(completion, order: .afterDemandedValues)
    }

    @usableFromInline
    var description: String { "FlatMap" }
}

/// The subscriber flatMap gives each inner publisher.
///
/// **Demand:** the inner is asked for the downstream's outstanding demand when it subscribes, then for every
/// later downstream request (see ``FlatMapStateMachine``).
/// **Thread safety:** its `receive` methods are called by one inner publisher, serialized (the contract); they may
/// run on any thread, concurrently with other inners.
@usableFromInline
final class FlatMapInner<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, @unchecked Sendable
where
    NewPublisher.Output == Downstream.Input, NewPublisher.Failure == Downstream.Failure,
    Upstream.Failure == Downstream.Failure
{
    @usableFromInline typealias Input = NewPublisher.Output
    @usableFromInline typealias Failure = NewPublisher.Failure

    @usableFromInline let parent: FlatMapSubscription<Upstream, NewPublisher, Downstream>
    @usableFromInline let id: Int
    // Touched only on this inner's own serialized signal path. Once the downstream's demand is unlimited it stays
    // so, and the per-value bookkeeping (a lock round-trip) can be skipped.
    @exclusivity(unchecked) @usableFromInline var demandIsUnlimited = false

    @inlinable
    init(parent: FlatMapSubscription<Upstream, NewPublisher, Downstream>, id: Int) {
        self.parent = parent
        self.id = id
    }

    @inlinable
    func receive(subscription: Subscription) {
        guard let demand = parent.state.withCriticalSection({ $0.innerSubscribed(id, subscription) }) else {
            CalloutCheck.assertNoLockHeld("flatMap cancelling an inner it no longer needs")
            subscription.cancel()
            return
        }
        demandIsUnlimited = demand == .unlimited
        if demand > .none {
            CalloutCheck.assertNoLockHeld("flatMap requesting from an inner")
            subscription.request(demand)
        }
    }

    @inlinable
    func receive(_ input: NewPublisher.Output) -> Subscribers.Demand {
        if !demandIsUnlimited {
            parent.state.withCriticalSection { $0.innerDelivered() }
        }
        // Performance: borrowed through `Unmanaged` (the inner holds its parent for as long as it runs), so the
        // emitter's storage is not retained and released around every value.
        _ = Unmanaged.passUnretained(parent)._withUnsafeGuaranteedRef { $0.emitter.offer(input) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<NewPublisher.Failure>) {
        parent.inner(id, finished: completion)
    }

    @usableFromInline
    var description: String { "FlatMap" }
}
