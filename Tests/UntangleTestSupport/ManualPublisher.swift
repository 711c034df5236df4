import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// A hand-driven upstream: records every request and cancel made on its subscription (and, if asked, every
/// subscription), and lets the test send whatever the demand (like a subject that ignores backpressure; tests check
/// the demand in `history` or `demand`).
package final class ManualPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    package enum UpstreamEvent: Equatable, CustomStringConvertible {
        /// A subscriber attached (recorded only by `ManualPublisher(recordsSubscriptions: true)`).
        case subscribed
        case request(Subscribers.Demand)
        case cancel
        package var description: String {
            switch self {
            case .subscribed: return "subscribed"
            case .request(let demand): return "request(\(demand))"
            case .cancel: return "cancel"
            }
        }
    }

    private let lock = Lock()
    private var _history: [UpstreamEvent] = []
    private var downstream: AnySubscriber<Output, Failure>?
    private var _subscriptions = 0
    private var _demand = Subscribers.Demand.none
    private let recordsSubscriptions: Bool

    /// `recordsSubscriptions`: also put `.subscribed` in `history` at each subscription (for operators that
    /// resubscribe, like retry, whose tests read the order of subscriptions, requests and cancels).
    package init(recordsSubscriptions: Bool = false) {
        self.recordsSubscriptions = recordsSubscriptions
    }

    package var history: [UpstreamEvent] { lock.withLock { _history } }
    /// How many subscribers it has had (each subscription replaces the previous subscriber).
    package var subscriptions: Int { lock.withLock { _subscriptions } }
    /// Demand requested (and returned from `send`) by the current subscriber and not used by `send` yet.
    package var demand: Subscribers.Demand { lock.withLock { _demand } }
    /// Whether a subscriber is attached (not cancelled, not sent a completion).
    package var isSubscribed: Bool { lock.withLock { downstream != nil } }

    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock {
            downstream = AnySubscriber(subscriber)
            _subscriptions += 1
            _demand = .none
            if recordsSubscriptions { _history.append(.subscribed) }
        }
        let subscription = ManualSubscription(owner: self)
        // A subscriber holding this subscription and this publisher holding the subscriber form a cycle until cancel
        // or completion: end it at teardown, as a real app's cancellable would.
        LeakCheckObserver.register()
        LeakCheckObserver.cancelAtTeardown { [weak self] in self?.lock.withLock { self?.downstream = nil } }
        subscriber.receive(subscription: subscription)
    }

    @discardableResult
    package func send(_ value: Output) -> Subscribers.Demand {
        let subscriber = lock.withLock { () -> AnySubscriber<Output, Failure>? in
            if _demand > .none { _demand -= 1 }
            return downstream
        }
        guard let subscriber else { return .none }
        let more = subscriber.receive(value)
        lock.withLock { _demand += more }
        return more
    }

    /// Sends `.finished`.
    package func finish() { send(completion: .finished) }

    /// Sends the completion and, like a real publisher, lets go of the subscriber.
    package func send(completion: Subscribers.Completion<Failure>) {
        let subscriber = lock.withLock { () -> AnySubscriber<Output, Failure>? in
            defer { downstream = nil }
            return downstream
        }
        subscriber?.receive(completion: completion)
    }

    fileprivate func record(_ event: UpstreamEvent) {
        lock.withLock {
            _history.append(event)
            switch event {
            case .request(let demand): _demand += demand
            case .cancel: downstream = nil
            case .subscribed: break
            }
        }
    }

    private final class ManualSubscription: Subscription, CustomStringConvertible {
        let owner: ManualPublisher
        init(owner: ManualPublisher) { self.owner = owner }
        // Upstream callouts are checked too: an operator must not request or cancel upstream under its lock.
        func request(_ demand: Subscribers.Demand) {
            precondition(CalloutCheck.heldByCurrentThread == 0, "request(_:) called upstream under a library lock")
            owner.record(.request(demand))
        }
        func cancel() {
            precondition(CalloutCheck.heldByCurrentThread == 0, "cancel() called upstream under a library lock")
            owner.record(.cancel)
        }
        var description: String { "ManualSubscription" }
    }
}
