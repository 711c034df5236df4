import Untangle
import UntangleSync

/// An upstream that keeps the operator's subscriber without giving it a subscription, so a test can send signals
/// (or cancel through the subscriber, which is also the downstream's subscription) before, or instead of, the
/// subscription; `subscribe(_:)` then hands it a ManualPublisher-like recording subscription.
final class UnsubscribedUpstream<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let lock = Lock()
    private var subscriber: AnySubscriber<Output, Failure>?
    private var erased: Any?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock {
            self.subscriber = AnySubscriber(subscriber)
            erased = subscriber
        }
    }

    /// The operator's subscriber seen as the subscription it also is.
    var operatorSubscription: Subscription? { lock.withLock { erased as? Subscription } }

    /// The operator's subscriber itself, for reflection checks.
    var operatorSubscriber: Any? { lock.withLock { erased } }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        lock.withLock { subscriber }?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        lock.withLock { subscriber }?.receive(completion: completion)
    }

    func send(subscription: Subscription) {
        lock.withLock { subscriber }?.receive(subscription: subscription)
    }
}

/// A subscription that only records what it is asked.
final class LoggingUpstreamSubscription: Subscription, @unchecked Sendable {
    enum Event: Equatable {
        case request(Subscribers.Demand)
        case cancel
    }

    private let lock = Lock()
    private var _history: [Event] = []
    /// Called (outside the lock) after each request is recorded.
    var onRequest: ((Subscribers.Demand) -> Void)?

    var history: [Event] { lock.withLock { _history } }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock { _history.append(.request(demand)) }
        onRequest?(demand)
    }

    func cancel() {
        lock.withLock { _history.append(.cancel) }
    }
}
