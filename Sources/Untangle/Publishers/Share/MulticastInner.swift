import UntangleSync

/// What a ``Publishers/Multicast`` subscribes to its subject for each of its subscribers: it relays the subject's
/// signals to the subscriber and hands the subscriber itself as its subscription ("Multicast"), relaying requests
/// and the cancel to the subject's subscription.
///
/// ```swift
/// subject.subscribe(MulticastInner(downstream: subscriber))
/// ```
///
/// **Demand:** requests are passed to the subject's subscription; the demand the subscriber returns from
/// `receive(_:)` is requested from it after the call (`receive(_:)` itself returns `.none`), as in Combine.
/// **Thread safety:** every method may be called from any thread; the phase is behind a lock, released before any
/// callout. A second subscription, and any signal before the first one or after the end, is ignored (a second
/// subscription is cancelled).
final class MulticastInner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private enum Phase {
        case awaitingSubscription(Downstream)
        case subscribed(Downstream, Subscription)
        case terminal
    }

    private let phase: LockedBox<Phase>

    init(downstream: Downstream) {
        phase = LockedBox(tracking: .awaitingSubscription(downstream))
    }

    func receive(subscription: Subscription) {
        let downstream = phase.withCriticalSection { phase -> Downstream? in
            guard case .awaitingSubscription(let downstream) = phase else { return nil }
            phase = .subscribed(downstream, subscription)
            return downstream
        }
        guard let downstream else {
            CalloutCheck.assertNoLockHeld("multicast cancelling a second subscription")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("multicast passing its subscription downstream")
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let subscribed = phase.withCriticalSection { phase -> (Downstream, Subscription)? in
            guard case .subscribed(let downstream, let subscription) = phase else { return nil }
            return (downstream, subscription)
        }
        guard let (downstream, subscription) = subscribed else { return .none }
        CalloutCheck.assertNoLockHeld("multicast delivering a value")
        let more = downstream.receive(input)
        if more > .none {
            subscription.request(more)
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        // The ended phase is released after the call, not under the lock (it holds user objects).
        let ended = phase.withCriticalSection { phase -> Phase? in
            guard case .subscribed = phase else { return nil }
            defer { phase = .terminal }
            return phase
        }
        guard case .subscribed(let downstream, _) = ended else { return }
        CalloutCheck.assertNoLockHeld("multicast delivering a completion")
        downstream.receive(completion: completion)
    }

    // Combine passes any demand on, `.none` included (the subject decides what to do with it).
    func request(_ demand: Subscribers.Demand) {
        let subscription = phase.withCriticalSection { phase -> Subscription? in
            guard case .subscribed(_, let subscription) = phase else { return nil }
            return subscription
        }
        CalloutCheck.assertNoLockHeld("multicast requesting from its subject")
        subscription?.request(demand)
    }

    func cancel() {
        let ended = phase.withCriticalSection { phase -> Phase in
            guard case .subscribed = phase else { return .terminal }
            defer { phase = .terminal }
            return phase
        }
        guard case .subscribed(_, let subscription) = ended else { return }
        CalloutCheck.assertNoLockHeld("multicast cancelling its subject subscription")
        subscription.cancel()
    }

    /// "Multicast".
    var description: String { "Multicast" }
    /// A mirror with no children, as in Combine.
    var customMirror: Mirror { Mirror(self, children: [:]) }
    /// The description.
    var playgroundDescription: Any { description }
}
