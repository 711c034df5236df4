import Untangle

// Machinery.md's trigger sample, written outside the core: an upstream plus a trigger (the valve) on the core's
// trigger skeleton (`TriggerPublisher`, `TriggerSubscription`). Compiled and tested (PausableSampleTests), not shipped.

extension Publisher {
    /// Passes this publisher's values while `valve`'s latest value is `true` (none before its first value).
    func pausable<Valve: Publisher>(_ valve: Valve) -> TriggerPublisher<
        Self, Valve, PausableStateMachine<Output, Failure>
    >
    where Valve.Output == Bool, Valve.Failure == Failure {
        TriggerPublisher(upstream: self, trigger: valve, operator: PausableStateMachine.init, output: { $0 })
    }
}

/// The sample's decisions, made under the skeleton's lock: no callouts, only answers. The defaults: the downstream
/// is subscribed with the upstream, and nobody counts demand.
struct PausableStateMachine<Input, Failure: Error>: TriggerOperator {
    typealias Output = Input
    typealias Signal = Bool
    typealias SignalFailure = Failure

    private var upstream = UpstreamSlot.awaiting
    private var valve = UpstreamSlot.awaiting
    /// The valve's latest value (false before its first).
    private var latest = false

    mutating func upstreamSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        upstream.admit(subscription, requesting: .none)
    }
    mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        valve.admit(subscription, requesting: .unlimited)
    }
    func requested(_ demand: Subscribers.Demand) -> Subscription? { upstream.subscription }
    func upstreamSent(_ input: Input) -> TriggerValueDecision<Input, Never> {
        latest ? .deliver(input) : .skip(returning: .max(1))
    }
    mutating func upstreamCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard let live = upstream.end() else { return TriggerEffects() }
        return TriggerEffects(cancelTrigger: valve.end(), released: live, completion: completion, endsDownstream: true)
    }
    mutating func triggerSent(_ signal: Bool) -> TriggerEffects<Self> {
        latest = signal
        return TriggerEffects()
    }
    mutating func triggerCompleted(_ completion: Subscribers.Completion<Failure>) -> TriggerEffects<Self> {
        guard case .failure = completion else { return TriggerEffects(released: valve.end()) }
        return TriggerEffects(
            cancelUpstream: upstream.end(), released: valve.end(), completion: completion, endsDownstream: true)
    }
    mutating func cancelled() -> TriggerEffects<Self> {
        TriggerEffects(cancelUpstream: upstream.end(), cancelTrigger: valve.end())
    }
}
