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
@usableFromInline
final class SwitchToLatestSubscription<P: Publisher, Downstream: Subscriber>: Subscriber, FanInOwner,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable, @unchecked Sendable
where P.Output == Downstream.Input, P.Failure == Downstream.Failure {
    @usableFromInline
    typealias Input = P
    @usableFromInline
    typealias Failure = P.Failure

    @usableFromInline
    let fanIn: FanIn<Delivery, SwitchToLatestStateMachine>

    @inlinable
    init(downstream: Downstream) {
        // The demand the downstream returns is handled by `Delivery` itself (it knows which value it was for). It
        // reaches the machine through a link to the fan-in's state, set once the fan-in made it: the emitter, which
        // holds `Delivery`, must not keep this subscription alive, and the state box does not refer back to it.
        let link = SwitchToLatestLink()
        fanIn = FanIn(
            downstream: Delivery(downstream: downstream, link: link), machine: SwitchToLatestStateMachine(),
            demand: .routedByDownstream)
        link.state = fanIn.state
    }

    /// Gives the downstream its subscription (Combine does so before subscribing to the outer publisher).
    @inlinable
    func start() {
        fanIn.start(self)
    }

    // MARK: Outer

    @inlinable
    func receive(subscription: Subscription) {
        guard fanIn.withCriticalSection({ $0.outerSubscribed(subscription) }) else {
            fanIn.perform(FanInEffects(cancelOne: subscription))
            return
        }
        fanIn.perform(FanInEffects(requestOne: subscription, demand: .unlimited))
    }

    @inlinable
    func receive(_ input: P) -> Subscribers.Demand {
        guard let (generation, replaced) = fanIn.withCriticalSection({ $0.switched() }) else { return .none }
        if let replaced {
            fanIn.perform(FanInEffects(cancelOne: replaced))
        }
        fanIn.subscribe(input, Inner(parent: self, generation: generation))
        return .none
    }

    @inlinable
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

    // MARK: Inners

    @inlinable
    func inner(_ generation: Int, subscribed subscription: Subscription) {
        fanIn.inner(generation, subscribed: subscription)
    }

    @inlinable
    func inner(_ generation: Int, received input: P.Output) -> Subscribers.Demand {
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

    @inlinable
    func inner(_ generation: Int, completed completion: Subscribers.Completion<P.Failure>) {
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
            fanIn.perform(FanInEffects(cancelOne: outer, completion: completion))
        }
    }

    @inlinable
    var description: String { "SwitchToLatest" }

    @inlinable
    var playgroundDescription: Any { description }

    @inlinable
    var customMirror: Mirror { Mirror(self, children: [:]) }

    /// A value of one inner, tagged with that inner's generation.
    @usableFromInline
    struct Tagged {
        @usableFromInline
        let generation: Int
        @usableFromInline
        let ticket: Int
        @usableFromInline
        let value: P.Output

        @inlinable
        init(generation: Int, ticket: Int, value: P.Output) {
            self.generation = generation
            self.ticket = ticket
            self.value = value
        }
    }

    /// The subscriber given to each inner publisher.
    @usableFromInline
    struct Inner: Subscriber, CustomStringConvertible, CustomPlaygroundDisplayConvertible, CustomReflectable {
        @usableFromInline typealias Input = P.Output
        @usableFromInline typealias Failure = P.Failure

        @usableFromInline
        let parent: SwitchToLatestSubscription
        @usableFromInline
        let generation: Int
        @usableFromInline
        let combineIdentifier = CombineIdentifier()

        @inlinable
        init(parent: SwitchToLatestSubscription, generation: Int) {
            self.parent = parent
            self.generation = generation
        }

        @inlinable
        func receive(subscription: Subscription) {
            parent.inner(generation, subscribed: subscription)
        }

        @inlinable
        func receive(_ input: P.Output) -> Subscribers.Demand {
            parent.inner(generation, received: input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<P.Failure>) {
            parent.inner(generation, completed: completion)
        }

        @inlinable
        var description: String { "SwitchToLatest" }

        @inlinable
        var playgroundDescription: Any { description }

        @inlinable
        var customMirror: Mirror { Mirror(self, children: ["parentSubscription": parent.combineIdentifier]) }
    }

    /// The emitter's downstream: drops values of replaced inners when their turn comes, and reports demand the
    /// downstream returns so that it reaches the current inner.
    @usableFromInline
    struct Delivery: TransparentSubscriber, CustomStringConvertible {
        @usableFromInline typealias Input = Tagged
        @usableFromInline typealias Failure = Downstream.Failure

        @usableFromInline
        let downstream: Downstream
        @usableFromInline
        let link: SwitchToLatestLink

        @inlinable
        init(downstream: Downstream, link: SwitchToLatestLink) {
            self.downstream = downstream
            self.link = link
        }

        @inlinable
        func receive(_ input: Tagged) -> Subscribers.Demand {
            // The link's state is set before the downstream can ask for anything, so before any delivery.
            let state = link.state.unsafelyUnwrapped
            guard state.withCriticalSection({ machine, _ in machine.deliver(input.generation) }) else {
                // Dropped: give back the unit of demand the emitter reserved for it.
                return .max(1)
            }
            let more = downstream.receive(input.value)
            if more > .none {
                // Nil: the demand goes back as the return value of the inner's `receive(_:)`, still running.
                let inner = state.withCriticalSection { machine, _ in
                    machine.delivered(input.generation, ticket: input.ticket, more: more)
                }
                UpstreamCalls.request(more, from: inner, operator: "switchToLatest")
            }
            return more
        }

        @inlinable
        var description: String { String(describing: downstream) }
    }
}

/// How a switchToLatest's `Delivery` (the emitter's downstream) reaches the fan-in's state: set once, right after
/// the fan-in is made, before the downstream gets its subscription.
@usableFromInline
final class SwitchToLatestLink {
    @usableFromInline
    var state: LockedBoxWithWord<SwitchToLatestStateMachine>?

    @inlinable
    init() {}
}
