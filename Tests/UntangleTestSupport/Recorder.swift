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

/// One signal and the virtual time (milliseconds since its recorder was created) at which it arrived: what a
/// ``Recorder`` made with a `clock` reports in ``Recorder/timedEvents``.
package struct Timed<Value, Failure: Error>: CustomStringConvertible {
    package let ms: Int
    package let event: Event<Value, Failure>

    package init(_ ms: Int, _ event: Event<Value, Failure>) {
        self.ms = ms
        self.event = event
    }

    package var description: String { "\(ms)ms \(event)" }
}

extension Timed: Equatable where Value: Equatable, Failure: Equatable {}

/// A test subscriber that records every signal (thread-safely) and lets the test drive demand.
///
/// - `initialDemand`: requested inside `receive(subscription:)` (nil or `.none`: nothing).
/// - `clock`: a ``TestScheduler`` whose virtual time stamps every signal (``timedEvents``), for timed operators.
/// - `label`: run on the delivering thread for every signal, its result kept beside it (``labels``): which queue
///   or thread delivered what.
/// - `onValue`: decides the demand returned from each `receive(_:)` (default `.none`); it may also call back
///   into the subscription (reentrancy tests).
package final class Recorder<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
    private let lock = Lock()
    private var _events: [Event<Input, Failure>] = []
    private var _times: [Int] = []
    private var _labels: [String] = []
    private var _inside = 0
    private var _maximumOverlap = 0
    private var waiters: [(condition: ([Event<Input, Failure>]) -> Bool, semaphore: DispatchSemaphore)] = []
    private var _subscription: Subscription?
    private let initialDemand: Subscribers.Demand?
    private let clock: (scheduler: TestScheduler, start: UInt64)?
    private let label: (() -> String)?
    private let onValue: (Recorder, Input) -> Subscribers.Demand
    private let onSubscription: ((Recorder, Subscription) -> Void)?

    package init(
        clock: TestScheduler? = nil,
        initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (Recorder, Input) -> Subscribers.Demand = { _, _ in .none },
        onSubscription: ((Recorder, Subscription) -> Void)? = nil,
        label: (() -> String)? = nil
    ) {
        self.clock = clock.map { ($0, $0.now.dispatchTime.uptimeNanoseconds) }
        self.label = label
        self.initialDemand = initialDemand
        self.onValue = onValue
        self.onSubscription = onSubscription
        LeakCheckObserver.register()
        LeakCheckObserver.cancelAtTeardown { [weak self] in self?.cancel() }
    }

    package var events: [Event<Input, Failure>] { lock.withLock { _events } }

    /// The signals with the clock's virtual time at which each arrived; only for a recorder made with a `clock`.
    package var timedEvents: [Timed<Input, Failure>] {
        precondition(clock != nil, "Recorder: timedEvents needs a recorder made with a clock")
        return lock.withLock { zip(_times, _events).map { Timed($0, $1) } }
    }

    /// What `label` returned for each signal, in order; only for a recorder made with a `label`.
    package var labels: [String] {
        precondition(label != nil, "Recorder: labels needs a recorder made with a label")
        return lock.withLock { _labels }
    }

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

    /// The first completion, if one arrived.
    package var completion: Subscribers.Completion<Failure>? { completions.first }

    /// Whether a completion arrived.
    package var isCompleted: Bool { !completions.isEmpty }

    /// The largest number of threads that were inside this recorder's `receive` methods at once: 1 for a publisher
    /// that serializes its signals (the contract's rule 1), 0 before any signal.
    package var maximumOverlap: Int { lock.withLock { _maximumOverlap } }

    /// Waits (at most `timeout` seconds, then fails the test) until at least `count` values arrived.
    package func waitForValues(
        _ count: Int, timeout: Double = 30, file: StaticString = #filePath, line: UInt = #line
    ) {
        wait(for: "\(count) values", timeout: timeout, file: file, line: line) { events in
            events.lazy.filter { if case .value = $0 { return true } else { return false } }.count >= count
        }
    }

    /// Waits (at most `timeout` seconds, then fails the test) until the subscription arrived.
    package func waitForSubscription(timeout: Double = 30, file: StaticString = #filePath, line: UInt = #line) {
        wait(for: "the subscription", timeout: timeout, file: file, line: line) { events in
            events.contains { if case .subscription = $0 { return true } else { return false } }
        }
    }

    /// Waits (at most `timeout` seconds, then fails the test) until the completion arrived.
    package func waitForCompletion(timeout: Double = 30, file: StaticString = #filePath, line: UInt = #line) {
        wait(for: "the completion", timeout: timeout, file: file, line: line) { events in
            events.contains { if case .completion = $0 { return true } else { return false } }
        }
    }

    // A waiter is signalled by the signal that meets its condition, after the recorder's lock is released: no
    // polling, no sleep.
    private func wait(
        for what: String, timeout: Double, file: StaticString, line: UInt,
        _ condition: @escaping ([Event<Input, Failure>]) -> Bool
    ) {
        let semaphore = DispatchSemaphore(value: 0)
        let met = lock.withLock { () -> Bool in
            if _inside == 0, condition(_events) { return true }
            waiters.append((condition, semaphore))
            return false
        }
        if !met, semaphore.wait(timeout: .now() + timeout) == .timedOut {
            XCTFail("watchdog: \(what) did not arrive within \(timeout) s", file: file, line: line)
        }
    }

    package func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }
    package func cancel() { subscription?.cancel() }

    // Every callout into a Recorder also checks the threading contract's rule 2 independently of the library's own
    // assertions: the delivering thread holds no library lock.
    private func checkNoLibraryLockHeld(_ what: String) {
        precondition(CalloutCheck.heldByCurrentThread == 0, "Recorder: \(what) delivered under a library lock")
    }

    // The clock and the label are read before the lock: TestScheduler's `now` takes the scheduler's own lock. Every
    // signal enters (counted for `maximumOverlap`) and leaves with `leave()`.
    private func record(_ event: Event<Input, Failure>, subscription: Subscription? = nil) {
        let ms = clock.map { Int(($0.scheduler.now.dispatchTime.uptimeNanoseconds - $0.start) / 1_000_000) }
        let label = label?()
        lock.withLock {
            _inside += 1
            _maximumOverlap = max(_maximumOverlap, _inside)
            _events.append(event)
            if let ms { _times.append(ms) }
            if let label { _labels.append(label) }
            if let subscription { _subscription = subscription }
        }
    }

    // Waiters are woken when a signal's callout has returned (after the initial request, after `onValue`), not when
    // the signal is recorded: a test that waits for the subscription and then sends must find the demand requested.
    private func leave() {
        let ready = lock.withLock { () -> [DispatchSemaphore] in
            _inside -= 1
            guard _inside == 0, !waiters.isEmpty else { return [] }
            let events = _events
            let ready = waiters.filter { $0.condition(events) }.map(\.semaphore)
            waiters.removeAll { waiter in ready.contains { $0 === waiter.semaphore } }
            return ready
        }
        ready.forEach { $0.signal() }
    }

    package func receive(subscription: Subscription) {
        checkNoLibraryLockHeld("receive(subscription:)")
        record(.subscription(String(describing: subscription)), subscription: subscription)
        defer { leave() }
        onSubscription?(self, subscription)
        if let initialDemand, initialDemand > .none {
            subscription.request(initialDemand)
        }
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        checkNoLibraryLockHeld("receive(_:)")
        record(.value(input))
        defer { leave() }
        return onValue(self, input)
    }

    package func receive(completion: Subscribers.Completion<Failure>) {
        checkNoLibraryLockHeld("receive(completion:)")
        record(.completion(completion))
        leave()
    }
}
