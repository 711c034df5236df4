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
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Input {
    enum Decision {
        case replace((Inner) -> Void)
        case complete(Subscribers.Completion<Downstream.Failure>)
    }

    private struct State {
        var machine = ReplacingUpstreamStateMachine()
        /// Released on cancel and with the completion: the subscription never keeps its subscriber alive.
        var downstream: Downstream?
    }

    private let state: LockedBox<State>
    private let onFailure: (UpstreamFailure) -> Decision
    private let name: String
    private let mirrorsDownstreamAndDemand: Bool

    /// `mirrorsDownstreamAndDemand`: the custom mirror shows the downstream and the outstanding demand (as
    /// Combine's `catch` does) instead of no children (as its `retry` does).
    init(
        downstream: Downstream, name: String, mirrorsDownstreamAndDemand: Bool = false,
        onFailure: @escaping (UpstreamFailure) -> Decision
    ) {
        state = LockedBox(tracking: State(downstream: downstream))
        self.name = name
        self.mirrorsDownstreamAndDemand = mirrorsDownstreamAndDemand
        self.onFailure = onFailure
    }

    /// Gives the downstream this subscription, then subscribes the first upstream with `subscribeFirst`.
    func start(_ subscribeFirst: (Inner) -> Void) {
        guard let downstream = state.withCriticalSection({ $0.downstream }) else { return }
        downstream.receive(subscription: self)
        subscribeFirst(Inner(owner: self, generation: 0))
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let upstream = state.withCriticalSection { $0.machine.request(demand) }
        CalloutCheck.assertNoLockHeld("\(name) requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let (upstream, downstream) = state.withCriticalSection { state in
            defer { state.downstream = nil }
            return (state.machine.end(), state.downstream)
        }
        withExtendedLifetime(downstream) {}
        upstream?.cancel()
    }

    fileprivate func upstream(_ generation: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.machine.subscribed(subscription, generation: generation) })
        else {
            subscription.cancel()
            return
        }
        if demand > .none {
            subscription.request(demand)
        }
    }

    fileprivate func upstream(_ generation: Int, received input: Input) -> Subscribers.Demand {
        guard
            let downstream = state.withCriticalSection({
                $0.machine.deliver(generation: generation) ? $0.downstream : nil
            })
        else { return .none }
        let more = downstream.receive(input)
        // Demand returned here goes to the current upstream through the return value; it is also outstanding.
        state.withCriticalSection { $0.machine.add(more) }
        return more
    }

    fileprivate func upstream(_ generation: Int, completed completion: Subscribers.Completion<UpstreamFailure>) {
        switch completion {
        case .finished:
            end(generation)?.receive(completion: .finished)
        case .failure(let error):
            guard state.withCriticalSection({ $0.machine.generation == generation }) else { return }
            // The user's handler runs outside the lock; a cancel racing it wins (the replacement is then cancelled
            // when its subscription arrives, because the state has ended).
            switch onFailure(error) {
            case .replace(let subscribe):
                guard state.withCriticalSection({ $0.machine.replace(generation: generation) }) else { return }
                subscribe(Inner(owner: self, generation: generation + 1))
            case .complete(let completion):
                end(generation)?.receive(completion: completion)
            }
        }
    }

    /// A replacement publisher (whose failure is final) completed.
    func replacementCompleted(_ completion: Subscribers.Completion<Downstream.Failure>, generation: Int) {
        end(generation)?.receive(completion: completion)
    }

    /// Ends the subscription because generation `generation` completed; returns the downstream to complete (nil if
    /// that generation is stale or the subscription already ended).
    private func end(_ generation: Int) -> Downstream? {
        state.withCriticalSection { state in
            guard state.machine.endFromUpstream(generation: generation) else { return nil }
            defer { state.downstream = nil }
            return state.downstream
        }
    }

    var description: String { name }

    var customMirror: Mirror {
        guard mirrorsDownstreamAndDemand else { return Mirror(self, children: EmptyCollection()) }
        let (downstream, demand) = state.withCriticalSection { ($0.downstream, $0.machine.outstanding) }
        return Mirror(self, children: [("downstream", downstream as Any), ("demand", demand)])
    }

    var playgroundDescription: Any { name }

    /// The subscriber given to each upstream generation.
    struct Inner: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
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
        var customMirror: Mirror { owner.customMirror }
        var playgroundDescription: Any { owner.name }
    }
}
