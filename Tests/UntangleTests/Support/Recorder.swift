import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// One signal as a subscriber saw it.
enum Event<Value, Failure: Error> {
    case subscription(String)
    case value(Value)
    case completion(Subscribers.Completion<Failure>)
}

extension Event: Equatable where Value: Equatable, Failure: Equatable {}

extension Event: CustomStringConvertible {
    var description: String {
        switch self {
        case .subscription(let name): return "subscription(\(name))"
        case .value(let value): return "value(\(value))"
        case .completion(.finished): return "finished"
        case .completion(.failure(let error)): return "failure(\(error))"
        }
    }
}

/// A test subscriber that records every signal (thread-safely) and lets the test drive demand.
///
/// - `initialDemand`: requested inside `receive(subscription:)` (nil or `.none`: nothing).
/// - `onValue`: decides the demand returned from each `receive(_:)` (default `.none`); it may also call back
///   into the subscription (reentrancy tests).
final class Recorder<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    private let lock = Lock()
    private var _events: [Event<Input, Failure>] = []
    private var _subscription: Subscription?
    private let initialDemand: Subscribers.Demand?
    private let onValue: (Recorder, Input) -> Subscribers.Demand
    private let onSubscription: ((Recorder, Subscription) -> Void)?

    init(
        initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (Recorder, Input) -> Subscribers.Demand = { _, _ in .none },
        onSubscription: ((Recorder, Subscription) -> Void)? = nil
    ) {
        self.initialDemand = initialDemand
        self.onValue = onValue
        self.onSubscription = onSubscription
        LeakCheckObserver.register()
        LeakCheckObserver.cancelAtTeardown { [weak self] in self?.cancel() }
    }

    var events: [Event<Input, Failure>] { lock.withLock { _events } }
    var subscription: Subscription? { lock.withLock { _subscription } }

    var values: [Input] {
        events.compactMap {
            if case .value(let value) = $0 { return value }
            return nil
        }
    }

    var completions: [Subscribers.Completion<Failure>] {
        events.compactMap {
            if case .completion(let completion) = $0 { return completion }
            return nil
        }
    }

    func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }
    func cancel() { subscription?.cancel() }

    // Every callout into a Recorder also checks the threading contract's rule 2 independently of the library's own
    // assertions: the delivering thread holds no library lock.
    private func checkNoLibraryLockHeld(_ what: String) {
        precondition(CalloutCheck.heldByCurrentThread == 0, "Recorder: \(what) delivered under a library lock")
    }

    func receive(subscription: Subscription) {
        checkNoLibraryLockHeld("receive(subscription:)")
        lock.withLock {
            _events.append(.subscription(String(describing: subscription)))
            _subscription = subscription
        }
        onSubscription?(self, subscription)
        if let initialDemand, initialDemand > .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        checkNoLibraryLockHeld("receive(_:)")
        lock.withLock { _events.append(.value(input)) }
        return onValue(self, input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        checkNoLibraryLockHeld("receive(completion:)")
        lock.withLock { _events.append(.completion(completion)) }
    }
}

/// A hand-driven upstream: records every request and cancel made on its subscription, and lets the test send.
final class ManualPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    enum UpstreamEvent: Equatable, CustomStringConvertible {
        case request(Subscribers.Demand)
        case cancel
        var description: String {
            switch self {
            case .request(let demand): return "request(\(demand))"
            case .cancel: return "cancel"
            }
        }
    }

    private let lock = Lock()
    private var _history: [UpstreamEvent] = []
    private var downstream: AnySubscriber<Output, Failure>?

    var history: [UpstreamEvent] { lock.withLock { _history } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock { downstream = AnySubscriber(subscriber) }
        let subscription = ManualSubscription(owner: self)
        // A subscriber holding this subscription and this publisher holding the subscriber form a cycle until cancel
        // or completion: end it at teardown, as a real app's cancellable would.
        LeakCheckObserver.register()
        LeakCheckObserver.cancelAtTeardown { [weak self] in self?.lock.withLock { self?.downstream = nil } }
        subscriber.receive(subscription: subscription)
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        lock.withLock { downstream }?.receive(value) ?? .none
    }

    /// Sends the completion and, like a real publisher, lets go of the subscriber.
    func send(completion: Subscribers.Completion<Failure>) {
        let subscriber = lock.withLock { () -> AnySubscriber<Output, Failure>? in
            defer { downstream = nil }
            return downstream
        }
        subscriber?.receive(completion: completion)
    }

    fileprivate func record(_ event: UpstreamEvent) {
        lock.withLock {
            _history.append(event)
            if case .cancel = event { downstream = nil }
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

struct TestError: Error, Equatable, CustomStringConvertible {
    let code: Int
    init(_ code: Int = 1) { self.code = code }
    var description: String { "TestError(\(code))" }
}

/// Runs `body(i)` on `threads` dedicated threads released together; fails the test instead of hanging if they have
/// not all finished within `timeout` seconds.
func runConcurrently(
    threads: Int,
    timeout: TimeInterval = 60,
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: @escaping @Sendable (Int) -> Void
) {
    if !Concurrently.run(threads: threads, timeout: timeout, body) {
        XCTFail("watchdog: \(threads) threads did not finish within \(timeout) s (deadlock?)", file: file, line: line)
    }
}

/// Runs `body` on a fresh thread and fails (instead of hanging) if it does not return within `timeout` seconds.
/// Returns whether it finished.
@discardableResult
func withWatchdog(
    _ what: String, timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable () -> Void
) -> Bool {
    if !Concurrently.watchdog(timeout: timeout, body) {
        XCTFail("watchdog: \(what) did not finish within \(timeout) s (deadlock?)", file: file, line: line)
        return false
    }
    return true
}
