import UntangleSync

/// Runs a ``ReplacingUpstreamStateMachine`` for `catch`, `tryCatch` and `retry`: the downstream keeps one
/// subscription (this object) while upstreams come and go behind it.
///
/// `onFailure` decides, for a failure of the current upstream, whether to subscribe a replacement (returning a
/// function that subscribes it with the given subscriber) or to end with a completion.
///
/// As in Combine, the downstream receives this subscription when the first upstream's subscription arrives; a value
/// the downstream did not request traps; the subscriber given to each upstream is also a subscription (its
/// `request`/`cancel` act on this object).
///
/// **Demand:** outstanding downstream demand is requested from each new upstream; see the state machine.
/// **Thread safety:** `request` and `cancel` may be called from any thread, concurrently with upstream signals;
/// signals from a replaced (stale) upstream are dropped; no lock is held while calling out. A replacement that
/// fails synchronously while being subscribed does not recurse: the loop that subscribed it subscribes the next one
/// once its `subscribe` call returned.
final class ReplacingUpstreamSubscription<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Input {
    enum Decision {
        case replace((Inner) -> Void)
        case complete(Subscribers.Completion<Downstream.Failure>)
    }

    /// Where the demand a downstream returns from `receive(_:)` goes.
    enum ReturnedDemand {
        /// Returned to the upstream from `receive(_:)` (`catch`).
        case returned
        /// Requested from the upstream's subscription; `receive(_:)` returns `.none` (`retry`).
        case requested
    }

    /// How the operator behaves where Combine's operators differ.
    struct Behavior {
        let name: String
        /// The custom mirror shows the downstream and the outstanding demand (Combine's `catch`) instead of no
        /// children (its `retry`).
        let mirrorsDownstreamAndDemand: Bool
        let earlyCompletion: ReplacingUpstreamStateMachine.EarlyCompletion
        let repeatedFailure: ReplacingUpstreamStateMachine.RepeatedFailure
        let returnedDemand: ReturnedDemand
    }

    private struct State {
        var machine: ReplacingUpstreamStateMachine
        /// Released on cancel and with the completion: the subscription never keeps its subscriber alive.
        var downstream: Downstream?
        /// Released with the downstream: the user's handler (and retry's upstream) does not outlive the stream.
        var onFailure: ((UpstreamFailure) -> Decision)?
        /// A replacement decided while a `subscribe` call was still running; the loop running it takes it.
        var pendingSubscribe: ((Inner) -> Void)?
        /// `cancel()` was called (checked after a late hand-over, which may cancel from inside it).
        var cancelled = false

        /// Lets go of everything the stream held for its subscriber; the caller releases (or completes) it
        /// after unlocking.
        mutating func release() -> (downstream: Downstream?, onFailure: Any?) {
            defer {
                downstream = nil
                onFailure = nil
            }
            return (downstream, onFailure)
        }

        /// `release()` for a completion: also whether the downstream must first be handed its subscription.
        mutating func releaseForCompletion() -> (downstream: Downstream?, onFailure: Any?, handOver: Bool) {
            let handOver = downstream != nil && machine.claimPendingLink()
            let (downstream, onFailure) = release()
            return (downstream, onFailure, handOver)
        }
    }

    private let state: LockedBox<State>
    private let behavior: Behavior
    private var name: String { behavior.name }

    init(downstream: Downstream, behavior: Behavior, onFailure: @escaping (UpstreamFailure) -> Decision) {
        let machine = ReplacingUpstreamStateMachine(
            earlyCompletion: behavior.earlyCompletion, repeatedFailure: behavior.repeatedFailure)
        state = LockedBox(tracking: State(machine: machine, downstream: downstream, onFailure: onFailure))
        self.behavior = behavior
    }

    /// Subscribes the first upstream with `subscribeFirst`; the downstream gets this subscription when that
    /// upstream's subscription arrives.
    func start(_ subscribeFirst: @escaping (Inner) -> Void) {
        runSubscribeLoop(generation: 0, subscribeFirst)
    }

    // Each `subscribe` call runs with no lock held. A replacement decided during the call (a synchronous failure of
    // the generation being subscribed) is parked in the state by `upstreamFailed` and subscribed here once the call
    // returned, so a publisher failing synchronously on every subscription is retried in a loop, not recursively.
    // The machine's `subscribeCall` makes this loop the only place subscribing while a call is running, so two
    // threads never subscribe generations concurrently.
    private func runSubscribeLoop(generation: Int, _ subscribe: @escaping (Inner) -> Void) {
        var next: (generation: Int, subscribe: (Inner) -> Void)? = (generation, subscribe)
        while case let (generation, subscribe)? = next {
            CalloutCheck.assertNoLockHeld("\(name) subscribing upstream")
            subscribe(Inner(owner: self, generation: generation))
            let (nextGeneration, pending) = state.withCriticalSection { state in
                defer { state.pendingSubscribe = nil }
                return (state.machine.subscribeReturned(), state.pendingSubscribe)
            }
            // A pending subscribe of a cancelled stream is let go here, outside the lock.
            next = nextGeneration.flatMap { generation in pending.map { (generation, $0) } }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        // Like Combine's, a `.none` request is passed through rather than trapped.
        let upstream = state.withCriticalSection { $0.machine.request(demand) }
        CalloutCheck.assertNoLockHeld("\(name) requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let (upstream, released) = state.withCriticalSection { state in
            state.cancelled = true
            return (state.machine.cancel(), state.release())
        }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("\(name) cancelling upstream")
        upstream?.cancel()
    }

    fileprivate func upstream(_ generation: Int, subscribed subscription: Subscription) {
        let (action, downstream) = state.withCriticalSection { state in
            let action = state.machine.subscribed(subscription, generation: generation)
            if case .handOver = action { return (action, state.downstream) }
            return (action, nil)
        }
        switch action {
        case .cancel:
            CalloutCheck.assertNoLockHeld("\(name) cancelling a stale upstream subscription")
            subscription.cancel()
        case .request(let demand):
            guard demand > .none else { return }
            CalloutCheck.assertNoLockHeld("\(name) requesting upstream")
            subscription.request(demand)
        case .handOver(let demand):
            CalloutCheck.assertNoLockHeld("\(name) handing the downstream its subscription")
            downstream?.receive(subscription: self)
            // Demand asked for before the handover (through the upstream-facing subscriber) goes up afterwards,
            // unless the downstream cancelled meanwhile; what it requested during the handover went up directly.
            guard demand > .none,
                let live = state.withCriticalSection({ $0.machine.liveSubscription(generation: generation) })
            else { return }
            CalloutCheck.assertNoLockHeld("\(name) requesting upstream")
            live.request(demand)
        }
    }

    fileprivate func upstream(_ generation: Int, received input: Input) -> Subscribers.Demand {
        let (delivery, downstream) = state.withCriticalSection { state in
            let delivery = state.machine.deliver(generation: generation)
            return (delivery, delivery == .deliver ? state.downstream : nil)
        }
        switch delivery {
        case .drop: return .none
        case .unrequested: preconditionFailure("\(name) received a value with no outstanding downstream demand")
        case .deliver: break
        }
        guard let downstream else { return .none }
        CalloutCheck.assertNoLockHeld("\(name) delivering a value")
        let more = downstream.receive(input)
        guard more > .none else { return .none }
        // The demand is outstanding as soon as it is recorded: a replacement subscribed later asks for it too.
        let live = state.withCriticalSection { $0.machine.add(more, generation: generation) }
        switch behavior.returnedDemand {
        case .returned:
            return more
        case .requested:
            CalloutCheck.assertNoLockHeld("\(name) requesting upstream")
            live?.request(more)
            return .none
        }
    }

    fileprivate func upstream(_ generation: Int, completed completion: Subscribers.Completion<UpstreamFailure>) {
        let failure: UpstreamFailure?
        if case .failure(let error) = completion { failure = error } else { failure = nil }
        typealias Released = (downstream: Downstream?, onFailure: Any?, handOver: Bool)
        let (action, handler, released) = state.withCriticalSection {
            state -> (ReplacingUpstreamStateMachine.CompletionAction, ((UpstreamFailure) -> Decision)?, Released) in
            let action = state.machine.completed(generation: generation, failed: failure != nil)
            switch action {
            case .ignore, .trap: return (action, nil, (nil, nil, false))
            case .finish: return (action, nil, state.releaseForCompletion())
            case .decide: return (action, state.onFailure, (nil, nil, false))
            }
        }
        switch action {
        case .ignore:
            return
        case .trap:
            preconditionFailure("\(name) received a failure from an upstream that had already failed")
        case .finish(let subscription):
            withExtendedLifetime((subscription, released.onFailure)) {}
            complete(released.downstream, with: .finished, handOver: released.handOver)
        case .decide(let subscription):
            withExtendedLifetime(subscription) {}
            if let failure, let handler { upstreamFailed(generation, failure, handler) }
        }
    }

    // The user's handler runs outside the lock, with the machine in `failing`: a cancel racing it wins (no
    // replacement is subscribed); a second failure from the same upstream meanwhile is stale.
    private func upstreamFailed(
        _ generation: Int, _ error: UpstreamFailure, _ onFailure: @escaping (UpstreamFailure) -> Decision
    ) {
        CalloutCheck.assertNoLockHeld("\(name) handling a failure")
        switch onFailure(error) {
        case .replace(let subscribe):
            let action = state.withCriticalSection { state in
                let action = state.machine.replace(generation: generation)
                if case .deferred = action { state.pendingSubscribe = subscribe }
                return action
            }
            if case .subscribeNow(let next) = action {
                runSubscribeLoop(generation: next, subscribe)
            }
        case .complete(let completion):
            let released = state.withCriticalSection {
                state -> (downstream: Downstream?, onFailure: Any?, handOver: Bool) in
                guard state.machine.endFromFailing(generation: generation) else { return (nil, nil, false) }
                return state.releaseForCompletion()
            }
            withExtendedLifetime(released.onFailure) {}
            complete(released.downstream, with: completion, handOver: released.handOver)
        }
    }

    /// A replacement publisher (whose failure is final) completed.
    func replacementCompleted(_ completion: Subscribers.Completion<Downstream.Failure>, generation: Int) {
        let (subscription, released) = state.withCriticalSection {
            state -> (Subscription?, (downstream: Downstream?, onFailure: Any?, handOver: Bool)) in
            let (ended, subscription) = state.machine.endFromReplacement(generation: generation)
            guard ended else { return (nil, (nil, nil, false)) }
            return (subscription, state.releaseForCompletion())
        }
        withExtendedLifetime((subscription, released.onFailure)) {}
        complete(released.downstream, with: completion, handOver: released.handOver)
    }

    // Every completion goes through here. When the stream ends before the downstream got its subscription (`retry`
    // passing on a completion that came before the first upstream's subscription), the subscription is handed over
    // first: a subscriber always hears of its subscription before any other signal (ThreadSafety rule 2, where
    // Combine sends the completion alone). A cancel from inside that hand-over means no completion follows.
    private func complete(
        _ downstream: Downstream?, with completion: Subscribers.Completion<Downstream.Failure>, handOver: Bool
    ) {
        guard let downstream else { return }
        CalloutCheck.assertNoLockHeld("\(name) completing")
        if handOver {
            downstream.receive(subscription: self)
            guard !state.withCriticalSection({ $0.cancelled }) else { return }
        }
        downstream.receive(completion: completion)
    }

    var description: String { name }

    var customMirror: Mirror {
        guard behavior.mirrorsDownstreamAndDemand else { return Mirror(self, children: EmptyCollection()) }
        let (downstream, demand) = state.withCriticalSection { ($0.downstream, $0.machine.outstanding) }
        return Mirror(self, children: [("downstream", downstream as Any), ("demand", demand)])
    }

    var playgroundDescription: Any { name }

    /// The subscriber given to each upstream generation; like Combine's, it is also a subscription (requests and
    /// cancels act on the whole operator).
    struct Inner: Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        typealias Failure = UpstreamFailure
        let owner: ReplacingUpstreamSubscription
        let generation: Int
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) { owner.upstream(generation, subscribed: subscription) }
        func receive(_ input: Input) -> Subscribers.Demand { owner.upstream(generation, received: input) }
        func receive(completion: Subscribers.Completion<UpstreamFailure>) {
            owner.upstream(generation, completed: completion)
        }
        func request(_ demand: Subscribers.Demand) { owner.request(demand) }
        func cancel() { owner.cancel() }
        var description: String { owner.name }
        var customMirror: Mirror { owner.customMirror }
        var playgroundDescription: Any { owner.name }
    }
}
