import Untangle
import UntangleSync

/// The subscription of a withLatestFrom: the subscriber it gives the upstream, the owner of the inner subscriber it
/// gives the other publisher, and the subscription it gives the downstream. Results go through one `Emitter`
/// because the other publisher's failure may race with the upstream's values on another thread.
///
/// **Demand:** see ``WithLatestFromStateMachine``. An upstream value that arrives before the other publisher has
/// sent anything is dropped and replaced by a request for one more.
/// **Thread safety:** both publishers may deliver on any threads; `request`/`cancel` may be called from any thread.
/// No lock is held while calling a publisher, the selector or the downstream.
final class WithLatestFromSubscription<UpstreamOutput, OtherOutput, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, @unchecked Sendable
{
    typealias Input = UpstreamOutput
    typealias Failure = Downstream.Failure

    private let state: LockedBox<WithLatestFromStateMachine<OtherOutput>>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let selector: (UpstreamOutput, OtherOutput) -> Downstream.Input

    init(downstream: Downstream, selector: @escaping (UpstreamOutput, OtherOutput) -> Downstream.Input) {
        let state = LockedBox(tracking: WithLatestFromStateMachine<OtherOutput>())
        self.state = state
        self.selector = selector
        // Demand the subscriber returns from `receive(_:)` goes upstream like a request. The closure captures the
        // state, not the subscription, so the emitter does not keep the subscription alive.
        emitter = DemandRelay(downstream: downstream) { WithLatestFromSubscription.forward($0, state: state) }.emitter()
    }

    private static func forward(
        _ demand: Subscribers.Demand, state: LockedBox<WithLatestFromStateMachine<OtherOutput>>
    ) {
        let upstream = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("withLatestFrom requesting upstream")
        upstream?.request(demand)
    }

    /// Starts the downstream, then subscribes the other publisher first (so that one that sends synchronously
    /// provides its value before the upstream's first), then the upstream.
    func start<Upstream: Publisher, Other: Publisher>(upstream: Upstream, other: Other)
    where
        Upstream.Output == UpstreamOutput, Upstream.Failure == Failure, Other.Output == OtherOutput,
        Other.Failure == Failure
    {
        emitter.start(subscription: self)
        other.subscribe(OtherSubscriber(parent: self))
        upstream.subscribe(self)
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
        state.withCriticalSection { $0.upstreamSubscribed(subscription) }.perform(
            on: subscription, operator: "withLatestFrom")
    }

    func receive(_ input: UpstreamOutput) -> Subscribers.Demand {
        let (latest, ended) = state.withCriticalSection { ($0.latest, $0.isTerminated) }
        if ended { return .none }
        guard let latest else {
            // Nothing to combine with yet: drop the value and ask for one more in its place.
            return .max(1)
        }
        CalloutCheck.assertNoLockHeld("withLatestFrom calling its selector")
        emitter.offer(selector(input, latest))
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard let (toCancel, released) = state.withCriticalSection({ $0.terminate(upstreamCompleted: true) }) else {
            return
        }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("withLatestFrom cancelling the other publisher")
        for subscription in toCancel {
            subscription.cancel()
        }
        switch completion {
        case .finished: emitter.complete(completion, order: .afterQueuedValues)
        case .failure: emitter.complete(completion, order: .afterDemandedValues)
        }
    }

    // MARK: Other

    fileprivate func otherSubscribed(_ subscription: Subscription) {
        state.withCriticalSection { $0.otherSubscribed(subscription) }.perform(
            on: subscription, operator: "withLatestFrom")
    }

    fileprivate func otherSent(_ value: OtherOutput) {
        let replaced = state.withCriticalSection { $0.otherSent(value) }
        // The replaced value may be the last reference to a user object: released here, after unlocking.
        withExtendedLifetime(replaced) {}
    }

    fileprivate func otherCompleted(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let released = state.withCriticalSection { $0.otherFinished() }
            withExtendedLifetime(released) {}
        case .failure:
            guard let (toCancel, released) = state.withCriticalSection({ $0.terminate(otherFailed: true) }) else {
                return
            }
            withExtendedLifetime(released) {}
            CalloutCheck.assertNoLockHeld("withLatestFrom cancelling upstream after the other publisher failed")
            for subscription in toCancel {
                subscription.cancel()
            }
            emitter.complete(completion, order: .afterDemandedValues)
        }
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        WithLatestFromSubscription.forward(demand, state: state)
    }

    func cancel() {
        emitter.cancel()
        guard let (toCancel, released) = state.withCriticalSection({ $0.terminate() }) else { return }
        withExtendedLifetime(released) {}
        CalloutCheck.assertNoLockHeld("withLatestFrom cancelling its sources")
        for subscription in toCancel {
            subscription.cancel()
        }
    }

    var description: String { "WithLatestFrom" }

    /// The subscriber given to the other publisher.
    private struct OtherSubscriber: Subscriber, CustomStringConvertible {
        typealias Input = OtherOutput
        typealias Failure = Downstream.Failure

        let parent: WithLatestFromSubscription
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            parent.otherSubscribed(subscription)
        }

        func receive(_ input: OtherOutput) -> Subscribers.Demand {
            parent.otherSent(input)
            return .none
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            parent.otherCompleted(completion)
        }

        var description: String { "WithLatestFrom" }
    }
}
