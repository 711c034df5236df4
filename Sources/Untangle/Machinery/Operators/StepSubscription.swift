import UntangleSync

/// The subscription behind every single-upstream operator that decides value by value: filters, `try` variants,
/// `compactMap`, `prefix(while:)`, `first(where:)`, `removeDuplicates` and the like. It is both the subscriber it
/// gives the upstream and the subscription it gives the downstream.
///
/// Upstream signals are serialized (the contract), so the `ended` flag is touched only by them, without a lock. The
/// lock guards the upstream subscription and the downstream reference, which `request` and `cancel` (from any
/// thread) and an ending step race for; `cancel` releases the downstream.
///
/// ```swift
/// upstream.subscribe(StepSubscription(downstream: subscriber, name: "Filter",
///                                     step: { isIncluded($0) ? .emit($0) : .skip },
///                                     completion: { $0 }))
/// ```
///
/// **Demand:** downstream requests pass straight upstream; a skipped value asks upstream for one more.
/// **Thread safety:** `request` and `cancel` may be called from any thread; an ending step (finish/fail) cancels
/// upstream outside the lock, exactly once, and no later upstream signal reaches the downstream.
@usableFromInline
final class StepSubscription<UpstreamOutput, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    @usableFromInline typealias Input = UpstreamOutput
    @usableFromInline typealias Failure = UpstreamFailure

    @usableFromInline
    enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case ended
    }

    @usableFromInline
    struct State {
        @usableFromInline var upstream = Upstream.awaiting
        /// Released on cancel and after the completion, so the subscription never keeps its subscriber alive.
        @usableFromInline var downstream: Downstream?

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        /// Ends everything; returns what to cancel and to release (or to deliver a last signal to) after unlocking.
        @inlinable
        mutating func end() -> (Subscription?, Downstream?) {
            defer {
                upstream = .ended
                downstream = nil
            }
            if case .subscribed(let subscription) = upstream {
                return (subscription, downstream)
            }
            return (nil, downstream)
        }
    }

    @usableFromInline let step: (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>
    @usableFromInline let mapCompletion:
        (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    @usableFromInline let state: LockedBox<State>
    /// Set by an ending step or the upstream's completion; read only on the (serialized) upstream signal path, so
    /// the run-time exclusivity check (about 40 instructions per value) could never fire.
    @exclusivity(unchecked) @usableFromInline var ended = false
    @usableFromInline let name: String

    @inlinable
    init(
        downstream: Downstream, name: String,
        step: @escaping (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>,
        completion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    ) {
        state = LockedBox(tracking: State(downstream: downstream))
        self.name = name
        self.step = step
        self.mapCompletion = completion
    }

    @inlinable
    func receive(subscription: Subscription) {
        let downstream = state.withCriticalSection { state -> Downstream? in
            guard case .awaiting = state.upstream, let downstream = state.downstream else { return nil }
            state.upstream = .subscribed(subscription)
            return downstream
        }
        CalloutCheck.assertNoLockHeld("an operator passing on its subscription")
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    // One lock round-trip per value: the downstream reference must be read under the lock because `cancel()` (from
    // any thread) releases it. The step itself (user code) runs outside the lock.
    @inlinable
    func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        guard !ended, let downstream = state.withCriticalSection({ $0.downstream }) else { return .none }
        switch step(input) {
        case .emit(let value):
            return downstream.receive(value)
        case .skip:
            return .max(1)
        case .emitThenFinish(let value):
            ended = true
            let (upstream, downstream) = state.withCriticalSection { $0.end() }
            upstream?.cancel()
            guard let downstream else { return .none }
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .finish:
            ended = true
            let (upstream, downstream) = state.withCriticalSection { $0.end() }
            upstream?.cancel()
            downstream?.receive(completion: .finished)
        case .fail(let error):
            ended = true
            let (upstream, downstream) = state.withCriticalSection { $0.end() }
            upstream?.cancel()
            downstream?.receive(completion: .failure(error))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard !ended else { return }
        ended = true
        let (_, downstream) = state.withCriticalSection { $0.end() }
        CalloutCheck.assertNoLockHeld("an operator passing on a completion")
        downstream?.receive(completion: mapCompletion(completion))
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        guard case .subscribed(let subscription) = state.withCriticalSection({ $0.upstream }) else { return }
        CalloutCheck.assertNoLockHeld("an operator requesting upstream")
        subscription.request(demand)
    }

    @inlinable
    func cancel() {
        let (upstream, downstream) = state.withCriticalSection { $0.end() }
        withExtendedLifetime(downstream) {}
        CalloutCheck.assertNoLockHeld("an operator cancelling upstream")
        upstream?.cancel()
    }

    @usableFromInline
    var description: String { name }
}
