import UntangleSync

/// The subscription of a switchToLatest: the subscriber it gives the outer publisher, the subscription it gives the
/// downstream, and the owner of one ``Inner`` per inner publisher. Inner values go through one ``Emitter`` tagged
/// with their inner's generation; ``Delivery`` drops those of replaced inners at the moment of delivery.
///
/// **Demand:** see ``SwitchToLatestStateMachine``.
/// **Thread safety:** the outer and inner publishers may deliver on any threads; `request`/`cancel` may be called
/// from any thread. No lock is held while calling the outer publisher, an inner or the downstream.
final class SwitchToLatestSubscription<P: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable, @unchecked Sendable
where P.Output == Downstream.Input, P.Failure == Downstream.Failure {
    typealias Input = P
    typealias Failure = P.Failure

    let state = LockedBox(tracking: SwitchToLatestStateMachine())
    // Set once in init (the delivery wrapper needs `self`) before the subscription is visible to other threads.
    private(set) var emitter: Emitter<Delivery>!

    init(downstream: Downstream) {
        emitter = Emitter(downstream: Delivery(downstream: downstream, parent: self), policy: .unbounded)
    }

    /// Gives the downstream its subscription (Combine does so before subscribing to the outer publisher).
    func start() {
        emitter.start(subscription: self)
    }

    // MARK: Outer

    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.outerSubscribed(subscription) }) else {
            CalloutCheck.assertNoLockHeld("switchToLatest cancelling a second outer subscription")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("switchToLatest requesting from the outer publisher")
        subscription.request(.unlimited)
    }

    func receive(_ input: P) -> Subscribers.Demand {
        guard let (generation, replaced) = state.withCriticalSection({ $0.switched() }) else { return .none }
        CalloutCheck.assertNoLockHeld("switchToLatest cancelling the replaced inner")
        replaced?.cancel()
        input.subscribe(Inner(parent: self, generation: generation))
        return .none
    }

    func receive(completion: Subscribers.Completion<P.Failure>) {
        switch completion {
        case .finished:
            if state.withCriticalSection({ $0.outerFinished() }) {
                emitter.complete(.finished, order: .afterQueuedValues)
            }
        case .failure:
            fail(completion, cancelling: state.withCriticalSection { $0.outerFailed() })
        }
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        let inner = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("switchToLatest forwarding demand to the current inner")
        inner?.request(demand)
    }

    func cancel() {
        emitter.cancel()
        let subscriptions = state.withCriticalSection { $0.cancel() }
        CalloutCheck.assertNoLockHeld("switchToLatest cancelling its sources")
        for subscription in subscriptions ?? [] {
            subscription.cancel()
        }
    }

    // MARK: Inners

    fileprivate func inner(_ generation: Int, subscribed subscription: Subscription) {
        switch state.withCriticalSection({ $0.innerSubscribed(generation, subscription) }) {
        case .request(let demand):
            if demand > .none {
                CalloutCheck.assertNoLockHeld("switchToLatest requesting from the new inner")
                subscription.request(demand)
            }
        case .cancel:
            CalloutCheck.assertNoLockHeld("switchToLatest cancelling a replaced or second inner subscription")
            subscription.cancel()
        case .ignore:
            break
        }
    }

    fileprivate func inner(_ generation: Int, received input: P.Output) -> Subscribers.Demand {
        // The generation is checked again at delivery, not only here: this check could pass just before a switch
        // on another thread, and the value would then be delivered after it. The demand check here is safe: demand
        // is used up at delivery, so here it is never lower than what the current inner may still send.
        switch state.withCriticalSection({ $0.admit(generation) }) {
        case .drop:
            return .none
        case .trap:
            preconditionFailure("switchToLatest: the current inner publisher sent a value without demand")
        case .offer(let ticket):
            _ = emitter.offer(Tagged(generation: generation, ticket: ticket, value: input))
            return state.withCriticalSection { $0.takeReply(ticket) }
        }
    }

    fileprivate func inner(_ generation: Int, completed completion: Subscribers.Completion<P.Failure>) {
        let failed: Bool
        if case .failure = completion { failed = true } else { failed = false }
        switch state.withCriticalSection({ $0.innerCompleted(generation, failed: failed) }) {
        case .ignore:
            break
        case .trap:
            preconditionFailure("switchToLatest: an inner publisher completed before sending its subscription")
        case .finished(let released, let finish):
            withExtendedLifetime(released) {}
            if finish {
                emitter.complete(.finished, order: .afterQueuedValues)
            }
        case .failed(let outer):
            fail(completion, cancelling: outer.map { [$0] } ?? [])
        }
    }

    private func fail(_ completion: Subscribers.Completion<P.Failure>, cancelling: [Subscription]?) {
        guard let subscriptions = cancelling else { return }
        CalloutCheck.assertNoLockHeld("switchToLatest cancelling its sources after a failure")
        for subscription in subscriptions {
            subscription.cancel()
        }
        emitter.complete(completion, order: .afterDemandedValues)
    }

    var description: String { "SwitchToLatest" }

    var playgroundDescription: Any { description }

    var customMirror: Mirror { Mirror(self, children: [:]) }

    /// A value of one inner, tagged with that inner's generation.
    struct Tagged {
        let generation: Int
        let ticket: Int
        let value: P.Output
    }

    /// The subscriber given to each inner publisher.
    struct Inner: Subscriber, CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable {
        typealias Input = P.Output
        typealias Failure = P.Failure

        let parent: SwitchToLatestSubscription
        let generation: Int
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            parent.inner(generation, subscribed: subscription)
        }

        func receive(_ input: P.Output) -> Subscribers.Demand {
            parent.inner(generation, received: input)
        }

        func receive(completion: Subscribers.Completion<P.Failure>) {
            parent.inner(generation, completed: completion)
        }

        var description: String { "SwitchToLatest" }

        var playgroundDescription: Any { description }

        var customMirror: Mirror { Mirror(self, children: ["parentSubscription": parent.combineIdentifier]) }
    }

    /// The emitter's downstream: drops values of replaced inners when their turn comes, and reports demand the
    /// downstream returns so that it reaches the current inner.
    struct Delivery: Subscriber, CustomStringConvertible {
        typealias Input = Tagged
        typealias Failure = Downstream.Failure

        let downstream: Downstream
        let parent: SwitchToLatestSubscription

        var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

        func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Tagged) -> Subscribers.Demand {
            guard parent.state.withCriticalSection({ $0.deliver(input.generation) }) else {
                // Dropped: give back the unit of demand the emitter reserved for it.
                return .max(1)
            }
            let more = downstream.receive(input.value)
            if more > .none,
                let inner = parent.state.withCriticalSection({
                    $0.delivered(input.generation, ticket: input.ticket, more: more)
                })
            {
                CalloutCheck.assertNoLockHeld("switchToLatest forwarding returned demand to the current inner")
                inner.request(more)
            }
            return more
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            downstream.receive(completion: completion)
        }

        var description: String { String(describing: downstream) }
    }
}
