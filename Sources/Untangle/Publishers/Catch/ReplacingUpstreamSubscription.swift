import UntangleSync

/// Runs a ``ReplacingUpstreamStateMachine`` for `catch`, `tryCatch` and `retry`: the downstream keeps one
/// subscription (this object) while upstreams come and go behind it.
///
/// `onFailure` decides, for a failure of the current upstream, whether to subscribe a replacement (returning a
/// function that subscribes it with the given subscriber) or to end with a completion.
///
/// **Demand:** outstanding downstream demand is requested from each new upstream; see the state machine.
/// **Thread safety:** `request` and `cancel` may be called from any thread, concurrently with upstream signals;
/// signals from a replaced (stale) upstream are dropped; no lock is held while calling out. A replacement that
/// fails synchronously while being subscribed recurses once per replacement (bounded by the retry count for
/// `retry`; by the handler for `catch`).
final class ReplacingUpstreamSubscription<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, @unchecked Sendable
where Downstream.Input == Input {
    enum Decision {
        case replace((Inner) -> Void)
        case complete(Subscribers.Completion<Downstream.Failure>)
    }

    private let downstream: Downstream
    private let state = LockedBox(ReplacingUpstreamStateMachine())
    private let onFailure: (UpstreamFailure) -> Decision
    private let name: String

    init(downstream: Downstream, name: String, onFailure: @escaping (UpstreamFailure) -> Decision) {
        self.downstream = downstream
        self.name = name
        self.onFailure = onFailure
    }

    /// Gives the downstream this subscription, then subscribes the first upstream with `subscribeFirst`.
    func start(_ subscribeFirst: (Inner) -> Void) {
        downstream.receive(subscription: self)
        subscribeFirst(Inner(owner: self, generation: 0))
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let upstream = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("\(name) requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let upstream = state.withCriticalSection { $0.end() }
        upstream?.cancel()
    }

    fileprivate func upstream(_ generation: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.subscribed(subscription, generation: generation) }) else {
            subscription.cancel()
            return
        }
        if demand > .none {
            subscription.request(demand)
        }
    }

    fileprivate func upstream(_ generation: Int, received input: Input) -> Subscribers.Demand {
        guard state.withCriticalSection({ $0.deliver(generation: generation) }) else { return .none }
        let more = downstream.receive(input)
        // Demand returned here goes to the current upstream through the return value; it is also outstanding.
        state.withCriticalSection { $0.add(more) }
        return more
    }

    fileprivate func upstream(_ generation: Int, completed completion: Subscribers.Completion<UpstreamFailure>) {
        switch completion {
        case .finished:
            guard state.withCriticalSection({ $0.endFromUpstream(generation: generation) }) else { return }
            downstream.receive(completion: .finished)
        case .failure(let error):
            guard state.withCriticalSection({ $0.generation == generation }) else { return }
            // The user's handler runs outside the lock; a cancel racing it wins (the replacement is then cancelled
            // when its subscription arrives, because the state has ended).
            switch onFailure(error) {
            case .replace(let subscribe):
                guard state.withCriticalSection({ $0.replace(generation: generation) }) else { return }
                subscribe(Inner(owner: self, generation: generation + 1))
            case .complete(let completion):
                guard state.withCriticalSection({ $0.endFromUpstream(generation: generation) }) else { return }
                downstream.receive(completion: completion)
            }
        }
    }

    /// A replacement publisher (whose failure is final) completed.
    func replacementCompleted(_ completion: Subscribers.Completion<Downstream.Failure>, generation: Int) {
        guard state.withCriticalSection({ $0.endFromUpstream(generation: generation) }) else { return }
        downstream.receive(completion: completion)
    }

    var description: String { name }

    /// The subscriber given to each upstream generation.
    struct Inner: Subscriber, CustomStringConvertible {
        typealias Failure = UpstreamFailure
        let owner: ReplacingUpstreamSubscription
        let generation: Int
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) { owner.upstream(generation, subscribed: subscription) }
        func receive(_ input: Input) -> Subscribers.Demand { owner.upstream(generation, received: input) }
        func receive(completion: Subscribers.Completion<UpstreamFailure>) {
            owner.upstream(generation, completed: completion)
        }
        var description: String { owner.name }
    }
}
