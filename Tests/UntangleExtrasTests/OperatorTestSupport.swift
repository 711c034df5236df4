import Foundation
import Untangle
import XCTest

/// Support for the operator tests of this target (withLatestFrom, flatMapFirst, share(replay:), time operators...):
/// a recording subscriber, a manual publisher that records what it is asked, and a test error.

/// One signal a subscriber received.
enum OpEvent<Value, Failure: Error> {
    case subscription
    case value(Value)
    case finished
    case failure(Failure)
}

extension OpEvent: Equatable where Value: Equatable, Failure: Equatable {}

/// An error with a code, for failure paths.
struct OpError: Error, Equatable, CustomStringConvertible {
    let code: Int
    init(_ code: Int = 0) { self.code = code }
    var description: String { "OpError(\(code))" }
}

/// A thread-safe recording subscriber: full event history, controllable demand.
final class OpRecorder<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [OpEvent<Input, Failure>] = []
    private var subscription: Subscription?
    private let initialDemand: Subscribers.Demand
    private let onValue: (Input) -> Subscribers.Demand
    private let onSubscription: (Subscription) -> Void

    init(
        initialDemand: Subscribers.Demand = .unlimited,
        onSubscription: @escaping (Subscription) -> Void = { _ in },
        onValue: @escaping (Input) -> Subscribers.Demand = { _ in .none }
    ) {
        self.initialDemand = initialDemand
        self.onValue = onValue
        self.onSubscription = onSubscription
    }

    var events: [OpEvent<Input, Failure>] {
        lock.lock()
        defer { lock.unlock() }
        return _events
    }

    var values: [Input] {
        events.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }

    var isCompleted: Bool {
        events.contains {
            switch $0 {
            case .finished, .failure: true
            default: false
            }
        }
    }

    func receive(subscription: Subscription) {
        lock.lock()
        _events.append(.subscription)
        self.subscription = subscription
        lock.unlock()
        onSubscription(subscription)
        if initialDemand > .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        lock.lock()
        _events.append(.value(input))
        lock.unlock()
        return onValue(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        lock.lock()
        switch completion {
        case .finished: _events.append(.finished)
        case .failure(let error): _events.append(.failure(error))
        }
        subscription = nil
        lock.unlock()
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        let subscription = self.subscription
        lock.unlock()
        subscription?.request(demand)
    }

    func cancel() {
        lock.lock()
        let subscription = self.subscription
        self.subscription = nil
        lock.unlock()
        subscription?.cancel()
    }
}

/// What a manual publisher was asked.
enum OpUpstreamEvent: Equatable {
    case subscribed
    case request(Subscribers.Demand)
    case cancel
}

/// A publisher driven by the test: it records every subscription, request and cancel (across all its
/// subscribers), and sends to its latest subscriber when told, whatever the demand (like a subject that ignores
/// backpressure; the tests check the demand in `history`).
final class OpSource<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let lock = NSLock()
    private var _history: [OpUpstreamEvent] = []
    private var subscriber: AnySubscriber<Output, Failure>?
    private var _subscriptions = 0
    private var _demand = Subscribers.Demand.none

    var history: [OpUpstreamEvent] {
        lock.lock()
        defer { lock.unlock() }
        return _history
    }

    var subscriptions: Int {
        lock.lock()
        defer { lock.unlock() }
        return _subscriptions
    }

    /// Requested (and returned) demand not yet used by `send`.
    var demand: Subscribers.Demand {
        lock.lock()
        defer { lock.unlock() }
        return _demand
    }

    var isSubscribed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return subscriber != nil
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.lock()
        _history.append(.subscribed)
        _subscriptions += 1
        _demand = .none
        self.subscriber = AnySubscriber(subscriber)
        lock.unlock()
        subscriber.receive(subscription: Link(source: self))
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        lock.lock()
        let subscriber = self.subscriber
        if _demand > .none { _demand -= 1 }
        lock.unlock()
        guard let subscriber else { return .none }
        let more = subscriber.receive(value)
        lock.lock()
        _demand += more
        lock.unlock()
        return more
    }

    func send(completion: Subscribers.Completion<Failure>) {
        lock.lock()
        let subscriber = self.subscriber
        self.subscriber = nil
        lock.unlock()
        subscriber?.receive(completion: completion)
    }

    func finish() { send(completion: .finished) }

    fileprivate func record(_ event: OpUpstreamEvent) {
        lock.lock()
        _history.append(event)
        switch event {
        case .request(let demand): _demand += demand
        case .cancel: subscriber = nil
        case .subscribed: break
        }
        lock.unlock()
    }

    private final class Link: Subscription, @unchecked Sendable {
        let source: OpSource
        let combineIdentifier = CombineIdentifier()
        init(source: OpSource) { self.source = source }
        func request(_ demand: Subscribers.Demand) { source.record(.request(demand)) }
        func cancel() { source.record(.cancel) }
    }
}

/// A reference whose deinit the tests can observe (weak-reference release checks).
final class OpWitness: @unchecked Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

/// A counter safe to bump from several threads.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = 0
    func add(_ n: Int) {
        lock.lock()
        _value += n
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return _value
    }
}

/// Seconds in a `DispatchQueue` (and `TestScheduler`) stride.
func opSeconds(_ stride: DispatchQueue.SchedulerTimeType.Stride) -> Double {
    Double(stride.magnitude) / 1_000_000_000
}
