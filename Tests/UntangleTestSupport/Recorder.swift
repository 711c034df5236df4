import Foundation
import Untangle
import UntangleSync
import UntangleTesting
import XCTest

/// One signal as a subscriber saw it.
package enum Event<Value, Failure: Error> {
    case subscription(String)
    case value(Value)
    case completion(Subscribers.Completion<Failure>)
}

extension Event: Equatable where Value: Equatable, Failure: Equatable {}

extension Event: CustomStringConvertible {
    package var description: String {
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
package final class Recorder<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    private let lock = Lock()
    private var _events: [Event<Input, Failure>] = []
    private var _subscription: Subscription?
    private let initialDemand: Subscribers.Demand?
    private let onValue: (Recorder, Input) -> Subscribers.Demand
    private let onSubscription: ((Recorder, Subscription) -> Void)?

    package init(
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

    package var events: [Event<Input, Failure>] { lock.withLock { _events } }
    package var subscription: Subscription? { lock.withLock { _subscription } }

    package var values: [Input] {
        events.compactMap {
            if case .value(let value) = $0 { return value }
            return nil
        }
    }

    package var completions: [Subscribers.Completion<Failure>] {
        events.compactMap {
            if case .completion(let completion) = $0 { return completion }
            return nil
        }
    }

    /// Whether a completion arrived.
    package var isCompleted: Bool { !completions.isEmpty }

    package func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }
    package func cancel() { subscription?.cancel() }

    // Every callout into a Recorder also checks the threading contract's rule 2 independently of the library's own
    // assertions: the delivering thread holds no library lock.
    private func checkNoLibraryLockHeld(_ what: String) {
        precondition(CalloutCheck.heldByCurrentThread == 0, "Recorder: \(what) delivered under a library lock")
    }

    package func receive(subscription: Subscription) {
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

    package func receive(_ input: Input) -> Subscribers.Demand {
        checkNoLibraryLockHeld("receive(_:)")
        lock.withLock { _events.append(.value(input)) }
        return onValue(self, input)
    }

    package func receive(completion: Subscribers.Completion<Failure>) {
        checkNoLibraryLockHeld("receive(completion:)")
        lock.withLock { _events.append(.completion(completion)) }
    }
}
