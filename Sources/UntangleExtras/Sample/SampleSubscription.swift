import Untangle
import UntangleSync

/// The subscription of a sample: the subscriber it gives the upstream, the owner of the sampler's subscriber, and
/// the subscription it gives the downstream. Sampled values go through one `Emitter` with the keep-latest policy.
///
/// **Demand:** see ``SampleStateMachine``.
/// **Thread safety:** the upstream and the sampler may deliver on any threads; `request`/`cancel` may be called
/// from any thread. No lock is held while calling a source or the downstream.
final class SampleSubscription<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let state = LockedBox(tracking: SampleStateMachine<Downstream.Input>())
    private let emitter: Emitter<Downstream>

    init(downstream: Downstream) {
        emitter = Emitter(downstream: downstream, policy: .keepLatest)
    }

    func start<Upstream: Publisher, Sampler: Publisher>(upstream: Upstream, sampler: Sampler)
    where Upstream.Output == Input, Upstream.Failure == Failure, Sampler.Failure == Failure {
        emitter.start(subscription: self)
        upstream.subscribe(self)
        sampler.subscribe(SamplerSubscriber<Sampler.Output>(parent: self))
    }

    // MARK: Upstream

    func receive(subscription: Subscription) {
        subscribed(subscription, isSampler: false)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let replaced = state.withCriticalSection { $0.upstreamSent(input) }
        // The replaced value may hold the last reference to a user object: released here, after unlocking.
        withExtendedLifetime(replaced) {}
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let released = state.withCriticalSection { $0.upstreamDidFinish() }
            withExtendedLifetime(released) {}
        case .failure:
            end(completion, cancelling: state.withCriticalSection { $0.terminate(keepUpstream: true) })
        }
    }

    // MARK: Sampler

    private func subscribed(_ subscription: Subscription, isSampler: Bool) {
        let accepted = state.withCriticalSection { $0.subscribed(subscription, isSampler: isSampler) }
        CalloutCheck.assertNoLockHeld("sample talking to a source")
        if accepted {
            subscription.request(.unlimited)
        } else {
            subscription.cancel()
        }
    }

    private func tick(samplerFinished: Bool) {
        let tick = state.withCriticalSection { $0.tick(samplerFinished: samplerFinished) }
        CalloutCheck.assertNoLockHeld("sample delivering")
        for subscription in tick.cancel {
            subscription.cancel()
        }
        if let value = tick.value {
            emitter.offer(value)
        }
        if tick.finish {
            emitter.complete(.finished, order: .afterQueuedValues)
        }
    }

    private func samplerFailed(_ completion: Subscribers.Completion<Failure>) {
        end(completion, cancelling: state.withCriticalSection { $0.terminate(keepSampler: true) })
    }

    private func end(_ completion: Subscribers.Completion<Failure>, cancelling: [Subscription]?) {
        guard let cancelling else { return }
        CalloutCheck.assertNoLockHeld("sample cancelling a source")
        for subscription in cancelling {
            subscription.cancel()
        }
        emitter.complete(completion, order: .afterDemandedValues)
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
    }

    func cancel() {
        emitter.cancel()
        let subscriptions = state.withCriticalSection { $0.terminate() }
        CalloutCheck.assertNoLockHeld("sample cancelling its sources")
        for subscription in subscriptions ?? [] {
            subscription.cancel()
        }
    }

    var description: String { "Sample" }

    /// The subscriber given to the sampler.
    private struct SamplerSubscriber<Tick>: Subscriber, CustomStringConvertible {
        typealias Input = Tick
        typealias Failure = Downstream.Failure

        let parent: SampleSubscription
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            parent.subscribed(subscription, isSampler: true)
        }

        func receive(_ input: Tick) -> Subscribers.Demand {
            parent.tick(samplerFinished: false)
            return .none
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            switch completion {
            case .finished: parent.tick(samplerFinished: true)
            case .failure: parent.samplerFailed(completion)
            }
        }

        var description: String { "Sample" }
    }
}
