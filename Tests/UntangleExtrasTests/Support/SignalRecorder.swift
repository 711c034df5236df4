import Foundation
import Untangle
import UntangleSync
import XCTest

/// One signal as a test subscriber saw it (the UntangleTests `Event` pattern, renamed: UntangleExtras has its own
/// public `Event`).
enum Signal<Value, Failure: Error> {
    case subscription(String)
    case value(Value)
    case completion(Subscribers.Completion<Failure>)
}

extension Signal: Equatable where Value: Equatable, Failure: Equatable {}

extension Signal: CustomStringConvertible {
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
final class SignalRecorder<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    private let lock = Lock()
    private var _signals: [Signal<Input, Failure>] = []
    private var _subscription: Subscription?
    private let initialDemand: Subscribers.Demand?
    private let onValue: (SignalRecorder, Input) -> Subscribers.Demand
    private let onSubscription: ((SignalRecorder, Subscription) -> Void)?

    init(
        initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (SignalRecorder, Input) -> Subscribers.Demand = { _, _ in .none },
        onSubscription: ((SignalRecorder, Subscription) -> Void)? = nil
    ) {
        self.initialDemand = initialDemand
        self.onValue = onValue
        self.onSubscription = onSubscription
    }

    var signals: [Signal<Input, Failure>] { lock.withLock { _signals } }
    var subscription: Subscription? { lock.withLock { _subscription } }

    var values: [Input] {
        signals.compactMap {
            if case .value(let value) = $0 { return value }
            return nil
        }
    }

    var completions: [Subscribers.Completion<Failure>] {
        signals.compactMap {
            if case .completion(let completion) = $0 { return completion }
            return nil
        }
    }

    func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }
    func cancel() { subscription?.cancel() }

    private func checkNoLibraryLockHeld(_ what: String) {
        precondition(CalloutCheck.heldByCurrentThread == 0, "SignalRecorder: \(what) delivered under a library lock")
    }

    func receive(subscription: Subscription) {
        checkNoLibraryLockHeld("receive(subscription:)")
        lock.withLock {
            _signals.append(.subscription(String(describing: subscription)))
            _subscription = subscription
        }
        onSubscription?(self, subscription)
        if let initialDemand, initialDemand > .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        checkNoLibraryLockHeld("receive(_:)")
        lock.withLock { _signals.append(.value(input)) }
        return onValue(self, input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        checkNoLibraryLockHeld("receive(completion:)")
        lock.withLock { _signals.append(.completion(completion)) }
    }
}

/// A hand-driven upstream: records every request and cancel made on its subscription, and lets the test send.
final class ManualSource<Output, Failure: Error>: Publisher, @unchecked Sendable {
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
    private var _subscriptions = 0

    var history: [UpstreamEvent] { lock.withLock { _history } }
    var subscriptions: Int { lock.withLock { _subscriptions } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock {
            downstream = AnySubscriber(subscriber)
            _subscriptions += 1
        }
        subscriber.receive(subscription: ManualSubscription(owner: self))
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        lock.withLock { downstream }?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        lock.withLock { downstream }?.receive(completion: completion)
    }

    fileprivate func record(_ event: UpstreamEvent) {
        lock.withLock {
            _history.append(event)
            if case .cancel = event { downstream = nil }
        }
    }

    private final class ManualSubscription: Subscription, CustomStringConvertible {
        let owner: ManualSource
        init(owner: ManualSource) { self.owner = owner }
        func request(_ demand: Subscribers.Demand) { owner.record(.request(demand)) }
        func cancel() { owner.record(.cancel) }
        var description: String { "ManualSubscription" }
    }
}

struct TestError: Error, Equatable, CustomStringConvertible {
    let code: Int
    init(_ code: Int = 1) { self.code = code }
    var description: String { "TestError(\(code))" }
}

/// Counts how many times something ran (thread-safely).
final class Counter: @unchecked Sendable {
    private let box = LockedBox(0)
    func increment() { box.withLock { $0 += 1 } }
    var value: Int { box.withLock { $0 } }
}
