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

    private let phase: LockedBox<MulticastInnerStateMachine<Downstream>>

    init(downstream: Downstream) {
        phase = LockedBox(tracking: MulticastInnerStateMachine(downstream: downstream))
    }

    func receive(subscription: Subscription) {
        let downstream = phase.withCriticalSection { $0.receiveSubscription(subscription) }
        guard let downstream else {
            CalloutCheck.assertNoLockHeld("multicast cancelling a second subscription")
            subscription.cancel()
            return
        }
        CalloutCheck.assertNoLockHeld("multicast passing its subscription downstream")
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let (downstream, subscription) = phase.withCriticalSection({ $0.live }) else { return .none }
        CalloutCheck.assertNoLockHeld("multicast delivering a value")
        let more = downstream.receive(input)
        if more > .none {
            subscription.request(more)
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        // What the ended phase held is released after the call, not under the lock (it holds user objects).
        guard let (downstream, _) = phase.withCriticalSection({ $0.receiveCompletion() }) else { return }
        CalloutCheck.assertNoLockHeld("multicast delivering a completion")
        downstream.receive(completion: completion)
    }

    // Combine passes any demand on, `.none` included (the subject decides what to do with it).
    func request(_ demand: Subscribers.Demand) {
        let subscription = phase.withCriticalSection { $0.live?.1 }
        CalloutCheck.assertNoLockHeld("multicast requesting from its subject")
        subscription?.request(demand)
    }

    func cancel() {
        guard let (_, subscription) = phase.withCriticalSection({ $0.cancel() }) else { return }
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
