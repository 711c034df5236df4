import UntangleSync

/// The subscription behind every single-upstream operator that decides value by value: filters, `try` variants,
/// `compactMap`, `prefix(while:)`, `first(where:)`, `removeDuplicates` and the like. It is both the subscriber it
/// gives the upstream and the subscription it gives the downstream.
///
/// The per-value path takes no lock: upstream signals are serialized (the contract), and the `ended` flag is only
/// touched by them. The lock guards the upstream subscription, which `request` and `cancel` (from any thread) and
/// an ending step race for.
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

    @usableFromInline let downstream: Downstream
    @usableFromInline let step: (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>
    @usableFromInline let mapCompletion:
        (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    @usableFromInline let upstream = LockedBox(Upstream.awaiting)
    /// Set by an ending step or the upstream's completion; read only on the (serialized) upstream signal path.
    @usableFromInline var ended = false
    @usableFromInline let name: String

    @inlinable
    init(
        downstream: Downstream, name: String,
        step: @escaping (UpstreamOutput) -> OperatorStep<Downstream.Input, Downstream.Failure>,
        completion: @escaping (Subscribers.Completion<UpstreamFailure>) -> Subscribers.Completion<Downstream.Failure>
    ) {
        self.downstream = downstream
        self.name = name
        self.step = step
        self.mapCompletion = completion
    }

    @inlinable
    func receive(subscription: Subscription) {
        let accepted = upstream.withCriticalSection { state -> Bool in
            guard case .awaiting = state else { return false }
            state = .subscribed(subscription)
            return true
        }
        CalloutCheck.assertNoLockHeld("an operator passing on its subscription")
        guard accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    @inlinable
    func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        guard !ended else { return .none }
        switch step(input) {
        case .emit(let value):
            return downstream.receive(value)
        case .skip:
            return .max(1)
        case .emitThenFinish(let value):
            ended = true
            cancelUpstream()
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .finish:
            ended = true
            cancelUpstream()
            downstream.receive(completion: .finished)
        case .fail(let error):
            ended = true
            cancelUpstream()
            downstream.receive(completion: .failure(error))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard !ended else { return }
        ended = true
        let released = upstream.withCriticalSection { state -> Upstream in
            defer { state = .ended }
            return state
        }
        withExtendedLifetime(released) {}
        downstream.receive(completion: mapCompletion(completion))
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        guard case .subscribed(let subscription) = upstream.withCriticalSection({ $0 }) else { return }
        CalloutCheck.assertNoLockHeld("an operator requesting upstream")
        subscription.request(demand)
    }

    @inlinable
    func cancel() {
        cancelUpstream()
    }

    @inlinable
    func cancelUpstream() {
        let previous = upstream.withCriticalSection { state -> Upstream in
            defer { state = .ended }
            return state
        }
        if case .subscribed(let subscription) = previous {
            CalloutCheck.assertNoLockHeld("an operator cancelling upstream")
            subscription.cancel()
        }
    }

    @usableFromInline
    var description: String { name }
}
