import UntangleSync

/// The subscription of a switchToLatest: the subscriber it gives the outer publisher, the subscription it gives the
/// downstream, and the owner of one ``Inner`` per inner publisher, on the ``FanIn`` skeleton (the inner's id is its
/// generation). Inner values go through the fan-in's one ``Emitter`` tagged with their inner's generation;
/// ``Delivery`` drops those of replaced inners at the moment of delivery. Every decision is taken with
/// `fanIn.withCriticalSection` and its callouts made by `fanIn.perform`.
///
/// **Demand:** see ``SwitchToLatestStateMachine``.
/// **Thread safety:** the outer and inner publishers may deliver on any threads; `request`/`cancel` may be called
/// from any thread. No lock is held while calling the outer publisher, an inner or the downstream.
final class SwitchToLatestSubscription<P: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable, @unchecked Sendable
where P.Output == Downstream.Input, P.Failure == Downstream.Failure {
    typealias Input = P
    typealias Failure = P.Failure

    private let fanIn: FanIn<Delivery, SwitchToLatestStateMachine>

    init(downstream: Downstream) {
        // The demand the downstream returns is handled by `Delivery` itself (it knows which value it was for). It
        // reaches this subscription through a link: the emitter, which holds it, must not keep the subscription alive.
        let link = Link()
        fanIn = FanIn(
            downstream: Delivery(downstream: downstream, link: link), machine: SwitchToLatestStateMachine(),
            demand: .routedByDownstream)
        link.parent = self
    }

    /// Gives the downstream its subscription (Combine does so before subscribing to the outer publisher).
    func start() {
        fanIn.start(self)
    }

    // MARK: Outer

    func receive(subscription: Subscription) {
        guard fanIn.withCriticalSection({ $0.outerSubscribed(subscription) }) else {
            fanIn.perform(FanInEffects(cancel: [subscription]))
            return
        }
        fanIn.perform(FanInEffects(requestOne: subscription, demand: .unlimited))
    }

    func receive(_ input: P) -> Subscribers.Demand {
        guard let (generation, replaced) = fanIn.withCriticalSection({ $0.switched() }) else { return .none }
        if let replaced {
            fanIn.perform(FanInEffects(cancel: [replaced]))
        }
        fanIn.subscribe(input, Inner(parent: self, generation: generation))
        return .none
    }

    func receive(completion: Subscribers.Completion<P.Failure>) {
        switch completion {
        case .finished:
            let (finish, released) = fanIn.withCriticalSection { $0.outerFinished() }
            fanIn.perform(FanInEffects(released: released, completion: finish ? .finished : nil))
        case .failure:
            guard let ended = fanIn.withCriticalSection({ $0.outerFailed() }) else { return }
            fanIn.perform(FanInEffects(cancel: ended.cancel, released: ended.released, completion: completion))
        }
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        fanIn.request(demand)
    }

    func cancel() {
        fanIn.cancel()
    }

    // MARK: Inners

    fileprivate func inner(_ generation: Int, subscribed subscription: Subscription) {
        fanIn.inner(generation, subscribed: subscription)
    }

    fileprivate func inner(_ generation: Int, received input: P.Output) -> Subscribers.Demand {
        // The generation is checked again at delivery, not only here: this check could pass just before a switch
        // on another thread, and the value would then be delivered after it. The demand check here is safe: demand
        // is used up at delivery, so here it is never lower than what the current inner may still send.
        switch fanIn.withCriticalSection({ $0.admit(generation) }) {
        case .drop:
            return .none
        case .trap:
            fatalError(
                "SwitchToLatestStateMachine: admit(\(generation)): the current inner sent a value without demand")
        case .offer(let ticket):
            fanIn.emitter.offer(Tagged(generation: generation, ticket: ticket, value: input))
            return fanIn.withCriticalSection { $0.takeReply(ticket) }
        }
    }

    fileprivate func inner(_ generation: Int, completed completion: Subscribers.Completion<P.Failure>) {
        let failed: Bool
        if case .failure = completion { failed = true } else { failed = false }
        switch fanIn.withCriticalSection({ $0.innerCompleted(generation, failed: failed) }) {
        case .ignore:
            break
        case .trap:
            fatalError(
                "SwitchToLatestStateMachine: innerCompleted(\(generation)) before the inner sent its subscription")
        case .finished(let released, let finish):
            fanIn.perform(FanInEffects(released: released, completion: finish ? .finished : nil))
        case .failed(let outer):
            fail(completion, cancelling: outer.map { [$0] } ?? [])
        }
    }

    private func fail(_ completion: Subscribers.Completion<P.Failure>, cancelling: [Subscription]?) {
        guard let subscriptions = cancelling else { return }
        fanIn.perform(FanInEffects(cancel: subscriptions, completion: completion))
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

    /// How ``Delivery`` reaches the subscription. Unowned: the emitter delivers only from inside a call on the
    /// subscription (an inner's, the outer's or the downstream's), which holds it alive.
    final class Link {
        unowned var parent: SwitchToLatestSubscription?
    }

    /// The emitter's downstream: drops values of replaced inners when their turn comes, and reports demand the
    /// downstream returns so that it reaches the current inner.
    struct Delivery: Subscriber, CustomStringConvertible {
        typealias Input = Tagged
        typealias Failure = Downstream.Failure

        let downstream: Downstream
        let link: Link

        var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

        func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Tagged) -> Subscribers.Demand {
            guard let fanIn = link.parent?.fanIn, fanIn.withCriticalSection({ $0.deliver(input.generation) }) else {
                // Dropped: give back the unit of demand the emitter reserved for it.
                return .max(1)
            }
            let more = downstream.receive(input.value)
            if more > .none {
                // Nil: the demand goes back as the return value of the inner's `receive(_:)`, still running.
                let inner = fanIn.withCriticalSection {
                    $0.delivered(input.generation, ticket: input.ticket, more: more)
                }
                fanIn.perform(FanInEffects(requestOne: inner, demand: more))
            }
            return more
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            downstream.receive(completion: completion)
        }

        var description: String { String(describing: downstream) }
    }
}
