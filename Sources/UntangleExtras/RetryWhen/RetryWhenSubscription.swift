import Untangle
import UntangleSync

/// The subscription of a `retry(when:)`: it owns the attempts' subscribers, the error subject handed to the
/// user's handler, and the trigger subscriber; values and completions go to the downstream through one `Emitter`.
///
/// **Demand:** see ``RetryWhenStateMachine``.
/// **Thread safety:** attempts and the trigger may deliver on any threads; `request`/`cancel` may be called from
/// any thread. No lock is held while calling the upstream, the trigger, the error subject or the downstream.
final class RetryWhenSubscription<Upstream: Publisher, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, @unchecked Sendable
where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
    typealias Failure = Upstream.Failure

    private let upstream: Upstream
    private let state: LockedBox<RetryWhenStateMachine>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let errors = PassthroughSubject<Failure, Never>()

    init(upstream: Upstream, downstream: Downstream) {
        self.upstream = upstream
        let state = LockedBox(tracking: RetryWhenStateMachine())
        self.state = state
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                RetryWhenSubscription.forward(more, state: state)
            },
            policy: .unbounded)
    }

    private static func forward(_ demand: Subscribers.Demand, state: LockedBox<RetryWhenStateMachine>) {
        let upstream = state.withCriticalSection { $0.request(demand) }
        CalloutCheck.assertNoLockHeld("retry(when:) requesting from the current attempt")
        upstream?.request(demand)
    }

    /// Starts the downstream, subscribes the trigger the handler makes from the error stream, then the first
    /// attempt.
    func start<Trigger: Publisher>(handler: (AnyPublisher<Failure, Never>) -> Trigger)
    where Trigger.Failure == Failure {
        emitter.start(subscription: self)
        handler(errors.eraseToAnyPublisher()).subscribe(TriggerSubscriber<Trigger.Output>(parent: self))
        startAttempt()
    }

    private func startAttempt() {
        guard let number = state.withCriticalSection({ $0.startAttempt() }) else { return }
        subscribeAttempt(number)
    }

    private func subscribeAttempt(_ number: Int) {
        CalloutCheck.assertNoLockHeld("retry(when:) subscribing an attempt")
        upstream.subscribe(AttemptSubscriber(parent: self, number: number))
    }

    // MARK: Attempts

    private func attempt(_ number: Int, subscribed subscription: Subscription) {
        guard let demand = state.withCriticalSection({ $0.upstreamSubscribed(number, subscription) }) else {
            CalloutCheck.assertNoLockHeld("retry(when:) cancelling an unwanted subscription")
            subscription.cancel()
            return
        }
        if demand > .none {
            CalloutCheck.assertNoLockHeld("retry(when:) requesting from a new attempt")
            subscription.request(demand)
        }
    }

    private func attempt(_ number: Int, sent value: Upstream.Output) {
        if state.withCriticalSection({ $0.upstreamSent(number) }) {
            emitter.offer(value)
        }
    }

    private func attempt(_ number: Int, completed completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            // Only the current attempt can finish the operator.
            let toCancel = state.withCriticalSection { state -> [Subscription]? in
                state.isCurrent(number) ? state.terminate(upstreamCompleted: true) : nil
            }
            guard let toCancel else { return }
            end(.finished, cancelling: toCancel)
        case .failure(let error):
            switch state.withCriticalSection({ $0.upstreamFailed(number) }) {
            case .ignore:
                break
            case .awaitTrigger(let released):
                withExtendedLifetime(released) {}
                CalloutCheck.assertNoLockHeld("retry(when:) handing an error to the trigger")
                errors.send(error)
            case .fail(let trigger):
                end(completion, cancelling: trigger.map { [$0] } ?? [])
            }
        }
    }

    // MARK: Trigger

    private func triggerSubscribed(_ subscription: Subscription) {
        guard state.withCriticalSection({ $0.triggerSubscribed(subscription) }) else {
            CalloutCheck.assertNoLockHeld("retry(when:) cancelling an unwanted trigger subscription")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("retry(when:) requesting from the trigger")
        subscription.request(.unlimited)
    }

    private func triggerSent() {
        if let number = state.withCriticalSection({ $0.triggerSent() }) {
            subscribeAttempt(number)
        }
    }

    private func triggerCompleted(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            if state.withCriticalSection({ $0.triggerDidFinish() }) {
                end(.finished, cancelling: [])
            }
        case .failure:
            guard let toCancel = state.withCriticalSection({ $0.terminate(triggerCompleted: true) }) else { return }
            end(completion, cancelling: toCancel)
        }
    }

    private func end(_ completion: Subscribers.Completion<Failure>, cancelling: [Subscription]) {
        CalloutCheck.assertNoLockHeld("retry(when:) cancelling its sources")
        for subscription in cancelling {
            subscription.cancel()
        }
        errors.send(completion: .finished)
        switch completion {
        case .finished: emitter.complete(completion, order: .afterQueuedValues)
        case .failure: emitter.complete(completion, order: .afterDemandedValues)
        }
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        RetryWhenSubscription.forward(demand, state: state)
    }

    func cancel() {
        emitter.cancel()
        guard let toCancel = state.withCriticalSection({ $0.terminate() }) else { return }
        CalloutCheck.assertNoLockHeld("retry(when:) cancelling its sources")
        for subscription in toCancel {
            subscription.cancel()
        }
        errors.send(completion: .finished)
    }

    var description: String { "RetryWhen" }

    /// The subscriber given to one attempt of the upstream.
    private struct AttemptSubscriber: Subscriber, CustomStringConvertible {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        let parent: RetryWhenSubscription
        let number: Int
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            parent.attempt(number, subscribed: subscription)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            parent.attempt(number, sent: input)
            return .none
        }

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            parent.attempt(number, completed: completion)
        }

        var description: String { "RetryWhen" }
    }

    /// The subscriber given to the trigger publisher.
    private struct TriggerSubscriber<Value>: Subscriber, CustomStringConvertible {
        typealias Input = Value
        typealias Failure = Upstream.Failure

        let parent: RetryWhenSubscription
        let combineIdentifier = CombineIdentifier()

        func receive(subscription: Subscription) {
            parent.triggerSubscribed(subscription)
        }

        func receive(_ input: Value) -> Subscribers.Demand {
            parent.triggerSent()
            return .none
        }

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            parent.triggerCompleted(completion)
        }

        var description: String { "RetryWhen" }
    }
}
