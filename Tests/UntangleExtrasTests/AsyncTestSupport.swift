import Foundation
import Untangle
import UntangleSync
import XCTest

/// A recording subscriber for the async bridges' tests: thread-safe, with waits (30 s watchdogs) for what the test
/// expects next instead of sleeps.
final class AsyncBridgeRecorder<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    private struct State {
        var values: [Input] = []
        var completion: Subscribers.Completion<Failure>?
        var subscription: Subscription?
        var waiters: [(condition: (State) -> Bool, semaphore: DispatchSemaphore)] = []
    }

    private let state = LockedBox(State())
    private let initialDemand: Subscribers.Demand?
    private let onValue: (Input) -> Subscribers.Demand
    let gauge = AsyncOverlapGauge()

    init(
        initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (Input) -> Subscribers.Demand = { _ in .none }
    ) {
        self.initialDemand = initialDemand
        self.onValue = onValue
    }

    var values: [Input] { state.withLock { $0.values } }
    var completion: Subscribers.Completion<Failure>? { state.withLock { $0.completion } }

    func request(_ demand: Subscribers.Demand) { state.withLock { $0.subscription }?.request(demand) }
    func cancel() { state.withLock { $0.subscription }?.cancel() }

    func receive(subscription: Subscription) {
        precondition(CalloutCheck.heldByCurrentThread == 0, "receive(subscription:) under a library lock")
        gauge.enter()
        defer { gauge.leave() }
        update { $0.subscription = subscription }
        if let initialDemand, initialDemand > .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        precondition(CalloutCheck.heldByCurrentThread == 0, "receive(_:) under a library lock")
        gauge.enter()
        defer { gauge.leave() }
        update { $0.values.append(input) }
        return onValue(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        precondition(CalloutCheck.heldByCurrentThread == 0, "receive(completion:) under a library lock")
        gauge.enter()
        defer { gauge.leave() }
        update {
            precondition($0.completion == nil, "a second completion")
            $0.completion = completion
        }
    }

    /// Waits until at least `count` values arrived.
    func waitForValues(_ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        wait(file: file, line: line, "\(count) values") { $0.values.count >= count }
    }

    /// Waits until the completion arrived.
    func waitForCompletion(file: StaticString = #filePath, line: UInt = #line) {
        wait(file: file, line: line, "the completion") { $0.completion != nil }
    }

    private func wait(file: StaticString, line: UInt, _ what: String, _ condition: @escaping (State) -> Bool) {
        let semaphore = DispatchSemaphore(value: 0)
        let met = state.withLock { state -> Bool in
            if condition(state) { return true }
            state.waiters.append((condition, semaphore))
            return false
        }
        if met { return }
        if semaphore.wait(timeout: .now() + 30) == .timedOut {
            XCTFail("watchdog: \(what) did not arrive within 30 s", file: file, line: line)
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let ready = state.withLock { state -> [DispatchSemaphore] in
            change(&state)
            let snapshot = state
            let ready = state.waiters.filter { $0.condition(snapshot) }.map(\.semaphore)
            state.waiters.removeAll { waiter in ready.contains { $0 === waiter.semaphore } }
            return ready
        }
        ready.forEach { $0.signal() }
    }
}

/// Records the largest number of threads inside a section at once.
final class AsyncOverlapGauge: @unchecked Sendable {
    private let box = LockedBox((current: 0, maximum: 0))
    func enter() {
        box.withLock {
            $0.current += 1; $0.maximum = max($0.maximum, $0.current)
        }
    }
    func leave() { box.withLock { $0.current -= 1 } }
    var maximum: Int { box.withLock { $0.maximum } }
}

/// An endless sequence of 0, 1, 2, … that counts how many times `next()` was called.
struct CountingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let pulls = LockedBox(0)

    struct AsyncIterator: AsyncIteratorProtocol {
        let pulls: LockedBox<Int>
        mutating func next() async -> Int? {
            pulls.withLock { pulls in
                defer { pulls += 1 }
                return pulls
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pulls: pulls) }
}

/// A sequence that yields its elements, then throws.
struct ThrowingSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let elements: [Int]
    let error: BridgeTestError

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: [Int]
        let error: BridgeTestError
        mutating func next() async throws -> Int? {
            if remaining.isEmpty { throw error }
            return remaining.removeFirst()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: elements, error: error) }
}

struct BridgeTestError: Error, Equatable {
    let code: Int
}

/// A multi-pass sequence of the given elements.
struct FiniteSequence: AsyncSequence, Sendable {
    typealias Element = Int
    let elements: [Int]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<Int>
        mutating func next() async -> Int? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: elements[...]) }
}
