import Untangle
import UntangleSync

/// The subscription of a `retry(when:)`: a ``FanIn`` whose inners are the numbered attempts, plus the error subject
/// handed to the user's handler and the trigger subscriber; values and completions go to the downstream through the
/// fan-in's emitter.
///
/// **Demand:** see ``RetryWhenStateMachine``.
/// **Thread safety:** attempts and the trigger may deliver on any threads; `request`/`cancel` may be called from
/// any thread. No lock is held while calling the upstream, the trigger, the error subject or the downstream.
final class RetryWhenSubscription<Upstream: Publisher, Downstream: Subscriber>: Subscription, FanInParent,
    CustomStringConvertible, @unchecked Sendable
where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
    typealias Failure = Upstream.Failure

    // The source publisher, kept to subscribe each attempt and let go once the operator has ended or been cancelled:
    // a finished subscription that its subscriber still holds keeps nothing of the source alive (RxSwift 9de36a77).
    // Taken out under the lock, released after it (its release may run user code).
    private let upstream: LockedBox<Upstream?>
    private let fanIn: FanIn<Downstream, RetryWhenStateMachine>
    private let errors = PassthroughSubject<Failure, Never>()

    init(upstream: Upstream, downstream: Downstream) {
        self.upstream = LockedBox(tracking: upstream)
        fanIn = FanIn(downstream: downstream, machine: RetryWhenStateMachine(), demand: .forwarded)
    }

    /// Starts the downstream, subscribes the trigger the handler makes from the error stream, then the first
    /// attempt.
    func start<Trigger: Publisher>(handler: (AnyPublisher<Failure, Never>) -> Trigger)
    where Trigger.Failure == Failure {
        fanIn.start(self)
        fanIn.subscribe(handler(errors.eraseToAnyPublisher()), TriggerSubscriber<Trigger.Output>(parent: self))
        startAttempt()
    }

    private func startAttempt() {
        guard let number = fanIn.withCriticalSection({ $0.startAttempt() }) else { return }
        subscribeAttempt(number)
    }

    private func subscribeAttempt(_ number: Int) {
        guard let upstream = upstream.withCriticalSection({ $0 }) else { return }
        fanIn.subscribe(upstream, FanInInner(parent: self, id: number))
    }

    /// Lets the source publisher go, after the lock is released.
    private func releaseUpstream() {
        let released = upstream.withCriticalSection { upstream -> Upstream? in
            defer { upstream = nil }
            return upstream
        }
        withExtendedLifetime(released) {}
    }

    // MARK: Attempts (the fan-in's inners, numbered)

    func inner(_ number: Int, subscribed subscription: Subscription) {
        fanIn.inner(number, subscribed: subscription)
    }

    func inner(_ number: Int, received value: Upstream.Output) -> Subscribers.Demand {
        fanIn.offer(value, from: number)
    }

    func inner(_ number: Int, completed completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            // Only the current attempt can finish the operator.
            let toCancel = fanIn.withCriticalSection { state -> [Subscription]? in
                state.isCurrent(number) ? state.end(upstreamCompleted: true, triggerCompleted: false) : nil
            }
            guard let toCancel else { return }
            end(.finished, cancelling: toCancel)
        case .failure(let error):
            switch fanIn.withCriticalSection({ $0.upstreamFailed(number) }) {
            case .ignore:
                break
            case .awaitTrigger(let released):
                fanIn.perform(FanInEffects(released: released))
                fanIn.callOut { errors.send(error) }
            case .fail(let trigger):
                end(completion, cancelling: trigger.map { [$0] } ?? [])
            }
        }
    }

    // MARK: Trigger

    private func triggerSubscribed(_ subscription: Subscription) {
        guard fanIn.withCriticalSection({ $0.triggerSubscribed(subscription) }) else {
            fanIn.perform(FanInEffects(cancelOne: subscription))
            return
        }
        fanIn.perform(FanInEffects(requestOne: subscription, demand: .unlimited))
    }

    private func triggerSent() {
        if let number = fanIn.withCriticalSection({ $0.triggerSent() }) {
            subscribeAttempt(number)
        }
    }

    private func triggerCompleted(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            if fanIn.withCriticalSection({ $0.triggerDidFinish() }) {
                end(.finished, cancelling: [])
            }
        case .failure:
            let toCancel = fanIn.withCriticalSection { $0.end(upstreamCompleted: false, triggerCompleted: true) }
            guard let toCancel else { return }
            end(completion, cancelling: toCancel)
        }
    }

    /// Cancels what is left, finishes the error stream, then completes the downstream.
    private func end(_ completion: Subscribers.Completion<Failure>, cancelling: [Subscription]) {
        fanIn.perform(FanInEffects(cancel: cancelling))
        fanIn.callOut { errors.send(completion: .finished) }
        fanIn.perform(FanInEffects(completion: completion))
        releaseUpstream()
    }

    // MARK: Downstream

    func request(_ demand: Subscribers.Demand) {
        fanIn.request(demand)
    }

    func cancel() {
        guard fanIn.cancel() else { return }
        fanIn.callOut { errors.send(completion: .finished) }
        releaseUpstream()
    }

    var description: String { "RetryWhen" }

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
