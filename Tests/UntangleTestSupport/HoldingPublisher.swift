import Foundation
import Untangle

/// A publisher that keeps the subscriber it is given (as the operator built it) and sends nothing on its own, so a
/// test can look at that subscriber and signal it out of order.
package final class HoldingPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    package init() {}
    package private(set) var subscriber: AnySubscriber<Output, Failure>?
    package private(set) var raw: Any?

    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        raw = subscriber
        self.subscriber = AnySubscriber(subscriber)
    }
}

/// A subscription that only records what it was asked.
package final class LoggingSubscription: Subscription, @unchecked Sendable {
    package init() {}
    package private(set) var log: [String] = []
    package func request(_ demand: Subscribers.Demand) { log.append("request(\(demand))") }
    package func cancel() { log.append("cancel") }
}
