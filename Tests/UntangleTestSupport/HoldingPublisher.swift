import Foundation
import Untangle
import UntangleSync
import XCTest

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

/// A subscription that writes what it is asked, and its own release, into a log the test keeps (`"name: request(max(1))"`,
/// `"name: cancel"`, `"name: released"`): it shows how long whoever was handed it (a subject) keeps it alive.
package final class LifetimeSubscription: Subscription, @unchecked Sendable {
    private let name: String
    private let log: LockedBox<[String]>

    package init(_ name: String, log: LockedBox<[String]>) {
        self.name = name
        self.log = log
    }

    deinit { log.withLock { $0.append("\(name): released") } }
    package func request(_ demand: Subscribers.Demand) { log.withLock { $0.append("\(name): request(\(demand))") } }
    package func cancel() { log.withLock { $0.append("\(name): cancel") } }
}

/// Hands a fresh subject a ``LifetimeSubscription`` ("first"), runs `beforeCompletion` (a subscriber may request
/// there), completes the subject, hands it another ("late"), then lets the subject go. Returns the log right after
/// the first hand-over, while the subject was still alive at the end, and once it was gone: whether it kept, asked
/// and cancelled its upstream subscriptions.
package func upstreamLifetimes<S: Subject>(
    of makeSubject: () -> S, beforeCompletion: (S) -> Void = { _ in }
) -> (handed: [String], alive: [String], gone: [String]) {
    let log = LockedBox([String]())
    var subject: S? = makeSubject()
    subject?.send(subscription: LifetimeSubscription("first", log: log))
    let handed = log.withLock { $0 }
    subject.map(beforeCompletion)
    subject?.send(completion: .finished)
    subject?.send(subscription: LifetimeSubscription("late", log: log))
    let alive = log.withLock { $0 }
    subject = nil
    return (handed, alive, log.withLock { $0 })
}

/// The history of Apple's subjects that ask their upstream for `.unlimited` at once (CurrentValueSubject, and
/// UntangleExtras' ReplaySubject after it): each subscription handed over is asked at once and kept, also after the
/// completion, until the subject goes away and cancels it (see ``upstreamLifetimes(of:beforeCompletion:)``).
package func assertAsksAtOnceAndKeepsUpstreamsUntilItGoes<S: Subject>(
    _ makeSubject: () -> S, file: StaticString = #filePath, line: UInt = #line
) {
    let log = upstreamLifetimes(of: makeSubject)
    XCTAssertEqual(log.handed, ["first: request(unlimited)"], "asked at once", file: file, line: line)
    XCTAssertEqual(log.alive, ["first: request(unlimited)", "late: request(unlimited)"], file: file, line: line)
    XCTAssertEqual(
        log.gone,
        [
            "first: request(unlimited)", "late: request(unlimited)", "first: cancel", "late: cancel",
            "first: released", "late: released",
        ], file: file, line: line)
}
