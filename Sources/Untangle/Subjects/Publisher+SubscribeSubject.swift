import UntangleSync

extension Publisher {
    /// Attaches the specified subject to this publisher: the subject re-publishes every value and the completion.
    ///
    /// ```swift
    /// let relay = PassthroughSubject<Int, Never>()
    /// let connection = [1, 2, 3].publisher.subscribe(relay)
    /// ```
    ///
    /// The subject is held weakly, as in Combine: the connection does not keep it alive, and values that arrive
    /// after it is gone are dropped.
    ///
    /// **Demand:** the subject requests `.unlimited` from this publisher (a `PassthroughSubject` once one of its
    /// subscribers has requested something).
    /// **Thread safety:** cancelling the returned cancellable (from any thread) cancels this publisher's
    /// subscription and releases the subject.
    public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable where Failure == S.Failure, Output == S.Output {
        let forwarder = SubjectSubscriber(subject: subject)
        subscribe(forwarder)
        return AnyCancellable(forwarder)
    }
}

/// Subscribes a subject to a publisher; it is also the subscription the subject sees, so the subject's requests
/// and cancellations reach the real upstream through it.
final class SubjectSubscriber<Target: Subject>: Subscriber, Subscription, SubjectConnection, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = Target.Output
    typealias Failure = Target.Failure

    private struct State {
        weak var subject: Target?
        var upstream: Subscription?
    }

    private let state: LockedBox<State>
    /// Set once the connection ended (cancelled, or completed by the publisher): the subject keeps
    /// its upstream subscriptions, as Apple's do, but drops the ended connections (``SubjectUpstreams``).
    private let ended = AtomicWord(0)

    var hasEnded: Bool { ended.load() != 0 }

    init(subject: Target) {
        state = LockedBox(tracking: State(subject: subject))
    }

    func receive(subscription: Subscription) {
        let subject = state.withCriticalSection { state -> Target? in
            guard state.subject != nil, state.upstream == nil else { return nil }
            state.upstream = subscription
            return state.subject
        }
        CalloutCheck.assertNoLockHeld("subscribing a subject")
        guard let subject else {
            subscription.cancel()
            return
        }
        subject.send(subscription: self)
    }

    // Signals before the subscription (or after the end) are ignored, as in Combine.
    func receive(_ input: Target.Output) -> Subscribers.Demand {
        state.withCriticalSection { $0.upstream == nil ? nil : $0.subject }?.send(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Target.Failure>) {
        let ended = state.withCriticalSection { state -> State? in
            guard state.upstream != nil else { return nil }
            defer { state = State() }
            return state
        }
        guard let ended else { return }
        _ = self.ended.exchange(1)
        ended.subject?.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        state.withCriticalSection { $0.upstream }?.request(demand)
    }

    func cancel() {
        let ended = state.withCriticalSection { state -> State in
            defer { state = State() }
            return state
        }
        _ = self.ended.exchange(1)
        ended.upstream?.cancel()
    }

    /// "Subject", as in Combine.
    var description: String { "Subject" }
    /// The subject (weakly held) and the upstream subscription, as in Combine.
    var customMirror: Mirror {
        let (subject, upstream) = state.withCriticalSection { ($0.subject, $0.upstream) }
        let children: [Mirror.Child] = [
            ("downstreamSubject", subject as Any), ("upstreamSubscription", upstream as Any),
            ("subject", subject as Any),
        ]
        return Mirror(self, children: children)
    }
    /// The description.
    var playgroundDescription: Any { description }
}
