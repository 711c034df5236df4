import Untangle
import UntangleSync

/// The subscription behind UntangleExtras' single-upstream operators that may deliver a value the upstream did not
/// send, or deliver after the upstream ended (materialize, dematerialize, the traits' conversions, using,
/// withUnretained). It is both the subscriber it gives the upstream and the subscription it gives the downstream.
///
/// Delivery goes through the core's `Emitter` (policy `.unbounded`: the queue holds at most what the upstream sent
/// within demand, plus one final value), so a value or completion produced at the upstream's completion waits for
/// demand and never races a request from another thread. The handler runs only on the upstream's serialized signal
/// path, so it may keep state without a lock.
///
/// ```swift
/// upstream.subscribe(EventOperatorSubscription(downstream: subscriber, name: "Materialize", demand: .passThrough) {
///     switch $0 {
///     case .value(let value): return .emit(.value(value))
///     case .completion(let completion): return .end(last: .completion(completion), .finished)
///     }
/// })
/// ```
///
/// **Demand:** per ``EventUpstreamDemand``; with `.passThrough`, the demand the downstream returns from `receive`
/// is also passed upstream.
/// **Thread safety:** `request` and `cancel` may be called from any thread. Upstream cancellation and `onEnd`
/// happen outside every lock, once.
final class EventOperatorSubscription<UpstreamOutput, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    typealias Input = UpstreamOutput
    typealias Failure = UpstreamFailure
    typealias Handler = (Event<UpstreamOutput, UpstreamFailure>) -> EventReaction<Downstream.Input, Downstream.Failure>

    private struct State {
        var upstream = UpstreamSlot.awaiting
        var requestedUnlimited = false
        var onEnd: (() -> Void)?

        /// Ends the upstream side: the subscription to cancel (if still running) and the end hook to run, once.
        mutating func end() -> (Subscription?, (() -> Void)?) {
            defer { onEnd = nil }
            return (upstream.end(), onEnd)
        }
    }

    private let name: String
    private let demandPolicy: EventUpstreamDemand
    private let handle: Handler
    private let state: LockedBox<State>
    private let emitter: Emitter<DemandRelay<Downstream>>
    /// Set on the upstream's serialized signal path only (like the core's StepSubscription).
    private var ended = false

    /// - Parameter onEnd: runs once, outside every lock, when the subscription ends (cancel, or the final signal
    ///   handed to the emitter).
    init(
        downstream: Downstream, name: String, demand: EventUpstreamDemand, onEnd: (() -> Void)? = nil,
        handle: @escaping Handler
    ) {
        self.name = name
        self.demandPolicy = demand
        self.handle = handle
        let state = LockedBox(tracking: State(onEnd: onEnd))
        self.state = state
        // Demand the downstream returns from a delivery goes upstream like a request (pass-through policy only).
        // The closure captures the state, not the subscription, so the emitter does not keep the subscription alive.
        emitter = DemandRelay(downstream: downstream) { more in
            guard demand == .passThrough else { return }
            EventOperatorSubscription.requestUpstream(more, state: state)
        }.emitter()
    }

    func receive(subscription: Subscription) {
        // Nothing is requested on admission: demand goes upstream once the downstream asks (or, for
        // `.unlimitedAtSubscription`, right after the downstream has its subscription).
        let admission = state.withCriticalSection { $0.upstream.admit(subscription, requesting: .none) }
        admission.perform(on: subscription, operator: "an event operator")
        guard admission.isAdmitted else { return }
        emitter.start(subscription: self)
        if demandPolicy == .unlimitedAtSubscription {
            requestUnlimitedOnce()
        }
    }

    private func requestUnlimitedOnce() {
        let upstream = state.withCriticalSection { state -> Subscription? in
            guard !state.requestedUnlimited, case .subscribed(let upstream) = state.upstream else { return nil }
            state.requestedUnlimited = true
            return upstream
        }
        CalloutCheck.assertNoLockHeld("an operator requesting upstream")
        upstream?.request(.unlimited)
    }

    func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        guard !ended else { return .none }
        switch handle(.value(input)) {
        case .emit(let value):
            emitter.offer(value)
        case .skip:
            return demandPolicy == .passThrough ? .max(1) : .none
        case .absorb:
            break
        case .end(let last, let completion):
            ended = true
            finish(last: last, completion, cancelUpstream: true)
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard !ended else { return }
        ended = true
        switch handle(.completion(completion)) {
        case .end(let last, let completion):
            finish(last: last, completion, cancelUpstream: false)
        case .emit, .skip, .absorb:
            preconditionFailure("\(name): an event operator must end when its upstream completes")
        }
    }

    private func finish(
        last: Downstream.Input?, _ completion: Subscribers.Completion<Downstream.Failure>, cancelUpstream: Bool
    ) {
        let (upstream, onEnd) = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("an operator ending")
        if cancelUpstream {
            upstream?.cancel()
        }
        if let last {
            emitter.offer(last)
        }
        emitter.complete(completion, order: .afterQueuedValues)
        onEnd?()
    }

    /// Passes `demand` to the upstream if it is still subscribed.
    private static func requestUpstream(_ demand: Subscribers.Demand, state: LockedBox<State>) {
        guard case .subscribed(let upstream) = state.withCriticalSection({ $0.upstream }) else { return }
        CalloutCheck.assertNoLockHeld("an operator requesting upstream")
        upstream.request(demand)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        switch demandPolicy {
        case .passThrough:
            EventOperatorSubscription.requestUpstream(demand, state: state)
        case .unlimitedOnFirstRequest:
            requestUnlimitedOnce()
        case .unlimitedAtSubscription:
            break
        }
    }

    func cancel() {
        emitter.cancel()
        let (upstream, onEnd) = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("an operator cancelling upstream")
        upstream?.cancel()
        onEnd?()
    }

    var description: String { name }
}
