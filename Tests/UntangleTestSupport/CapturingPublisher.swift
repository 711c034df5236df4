import Untangle
import UntangleSync

/// An upstream that keeps the subscriber it is given, exactly as given, and then does nothing (or, with
/// `sendsSubscription`, only hands it `Subscriptions.empty`): the test plays the upstream by hand through the
/// operator's own subscriber object (``subscriber``, ``erasedSubscriber``), inspects that object (its description,
/// mirror, identifier, type) or watches its lifetime (`holding: .weakly`). Each subscription is also passed to
/// `onSubscribe`, on the subscribing thread, for tests that wait for it.
///
/// Use ``ManualPublisher`` to drive a subscriber through a subscription of its own; use this one to reach the
/// subscriber object itself.
package final class CapturingPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// How the publisher keeps the last subscriber.
    package enum Holding { case strongly, weakly }

    private struct Captured {
        var strong: Any?
        weak var weak: AnyObject?
        var erased: AnySubscriber<Output, Failure>?
    }

    private let holding: Holding
    private let sendsSubscription: Bool
    private let onSubscribe: (AnySubscriber<Output, Failure>) -> Void
    private let captured = LockedBox(Captured())

    package init(
        holding: Holding = .strongly, sendsSubscription: Bool = false,
        onSubscribe: @escaping (AnySubscriber<Output, Failure>) -> Void = { _ in }
    ) {
        self.holding = holding
        self.sendsSubscription = sendsSubscription
        self.onSubscribe = onSubscribe
    }

    /// The last subscriber, as the publisher got it (nil once released, when held weakly).
    package var subscriber: Any? {
        captured.withLock { $0.strong ?? $0.weak }
    }

    /// The last subscriber, type-erased (nil when held weakly: an `AnySubscriber` would keep it alive).
    package var erasedSubscriber: AnySubscriber<Output, Failure>? {
        captured.withLock { $0.erased }
    }

    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let erased = AnySubscriber(subscriber)
        captured.withLock {
            switch holding {
            case .strongly: $0 = Captured(strong: subscriber, weak: nil, erased: erased)
            case .weakly: $0 = Captured(strong: nil, weak: subscriber as AnyObject, erased: nil)
            }
        }
        onSubscribe(erased)
        if sendsSubscription { subscriber.receive(subscription: Subscriptions.empty) }
    }
}
