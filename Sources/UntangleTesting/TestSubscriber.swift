import Foundation
import Untangle
import UntangleSync

/// A subscriber for tests: records every signal with the thread and (virtual) time it arrived, lets the test drive
/// demand, and notices contract violations on the way in.
///
/// ```swift
/// let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
/// [1, 2, 3].publisher.subscribe(subscriber)
/// XCTAssertEqual(subscriber.values, [1, 2])
/// subscriber.request(.max(5))
/// subscriber.assertEvents([.subscription, .value(1), .value(2), .value(3), .completion(.finished)]) { XCTFail($0) }
/// XCTAssertEqual(subscriber.violations, [])
/// ```
///
/// Demand is the test's: `initialDemand` is requested right after `receive(subscription:)` (after `onSubscription`
/// runs), each value returns `demandPerValue` (or what `onValue` decides), and ``request(_:)`` / ``cancel()`` act on
/// the subscription at any time, from any thread. The subscriber keeps its subscription until it is deinitialized,
/// so a test can still call ``request(_:)`` after the completion (a correct publisher ignores it).
///
/// The subscriber also checks the publisher side of the contract on every signal and lists what it saw wrong in
/// ``violations``: a signal before the subscription, a second subscription (which it cancels, as `Sink` does), a
/// value beyond the demand it requested, anything after the completion, two threads inside the subscriber at once,
/// and (in Untangle's own debug builds) a signal delivered while an Untangle lock is held.
///
/// **Demand:** exactly what the test asks for: ``requested`` is the running total (initial, returned from
/// `receive(_:)`, and ``request(_:)``), counted before the request is made so a synchronous delivery sees it.
/// **Thread safety:** every method and property may be used from any thread. Records are kept under a lock; the
/// `onSubscription`/`onValue` closures and every call into the subscription run outside it.
public final class TestSubscriber<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
    @unchecked Sendable
{
    // @unchecked Sendable: every mutable property lives in `state` (a LockedBox) and is read and written inside it;
    // the closures are immutable and only called outside the lock; `changed` is a condition used only for waiting.

    /// One contract violation: its kind (what groups repeats in a verifier report) and the full message.
    struct Violation: Sendable {
        let kind: String
        let message: String
    }

    private struct State {
        var records: [RecordedEvent<Input, Failure>] = []
        var subscription: Subscription?
        var requested = Subscribers.Demand.none
        var pendingDemand = Subscribers.Demand.none
        var delivered = 0
        var completed = false
        var violations: [Violation] = []
        /// Per thread number: how many receive calls are running on it.
        var depthByThread: [Int: Int] = [:]
        var inside = 0
        var maximumDepth = 0
        var overlaps = 0

        mutating func enter(_ thread: RecordedThread, with signal: @autoclosure () -> String) -> Int {
            let depth = (depthByThread[thread.number] ?? 0) + 1
            depthByThread[thread.number] = depth
            inside += 1
            maximumDepth = Swift.max(maximumDepth, depth)
            // Another thread is inside when more calls are running overall than on this thread.
            if inside > depth {
                overlaps += 1
                let others = depthByThread.keys.filter { $0 != thread.number }.sorted().map { "thread #\($0)" }
                violate(
                    "two threads inside the subscriber at once",
                    "two threads inside the subscriber at once (\(thread) entered with \(signal()) while "
                        + "\(others.joined(separator: ", ")) was inside)")
            }
            return depth
        }

        mutating func violate(_ kind: String, _ message: String) {
            violations.append(Violation(kind: kind, message: message))
        }

        mutating func leave(_ thread: RecordedThread) {
            let depth = (depthByThread[thread.number] ?? 1) - 1
            depthByThread[thread.number] = depth == 0 ? nil : depth
            inside -= 1
        }
    }

    private let state = LockedBox(State())
    private let changed = NSCondition()
    private let initialDemand: Subscribers.Demand
    private let demandPerValue: Subscribers.Demand
    private let scheduler: TestScheduler?
    private let onSubscription: ((TestSubscriber, Subscription) -> Void)?
    private let onValue: ((TestSubscriber, Input) -> Subscribers.Demand)?
    private let onCompletion: ((TestSubscriber, Subscribers.Completion<Failure>) -> Void)?

    /// Creates a subscriber.
    ///
    /// - Parameters:
    ///   - initialDemand: Requested right after the subscription arrives (`.none`: nothing until ``request(_:)``).
    ///   - demandPerValue: Returned from every `receive(_:)` when `onValue` is nil.
    ///   - scheduler: When given, every record carries the scheduler's `now`.
    ///   - onValue: Runs for every value (after it is recorded); its result is the demand returned to the publisher.
    ///     It may call ``request(_:)`` or ``cancel()`` (reentrancy tests). A trailing closure is this one.
    ///   - onSubscription: Runs when the subscription arrives, before the initial demand is requested.
    ///   - onCompletion: Runs when the completion arrives, after it is recorded.
    public init(
        initialDemand: Subscribers.Demand = .unlimited,
        demandPerValue: Subscribers.Demand = .none,
        scheduler: TestScheduler? = nil,
        onValue: ((TestSubscriber, Input) -> Subscribers.Demand)? = nil,
        onSubscription: ((TestSubscriber, Subscription) -> Void)? = nil,
        onCompletion: ((TestSubscriber, Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
        self.scheduler = scheduler
        self.onSubscription = onSubscription
        self.onValue = onValue
        self.onCompletion = onCompletion
    }

    // MARK: Reading the history

    /// Every signal received, with thread, time and nesting depth, in arrival order.
    public var records: [RecordedEvent<Input, Failure>] {
        state.withCriticalSection { $0.records }
    }

    /// Every signal received, in arrival order.
    public var events: [TestEvent<Input, Failure>] {
        records.map(\.event)
    }

    /// The values received, in order.
    public var values: [Input] {
        records.compactMap(\.event.value)
    }

    /// The number of values received (cheaper than `values.count`).
    public var valueCount: Int {
        state.withCriticalSection { $0.delivered }
    }

    /// The first completion received, if any.
    public var completion: Subscribers.Completion<Failure>? {
        records.lazy.compactMap(\.event.completion).first
    }

    /// Whether a completion arrived.
    public var isCompleted: Bool {
        state.withCriticalSection { $0.completed }
    }

    /// The subscription received (the first one), if any.
    public var subscription: Subscription? {
        state.withCriticalSection { $0.subscription }
    }

    /// The total demand requested so far: initial, returned from `receive(_:)`, and through ``request(_:)``.
    public var requested: Subscribers.Demand {
        state.withCriticalSection { $0.requested }
    }

    /// What the subscriber saw the publisher do wrong, in order; empty for a well-behaved publisher.
    public var violations: [String] {
        state.withCriticalSection { $0.violations.map(\.message) }
    }

    /// The violations with their kinds, for reports that group repeats.
    var violationRecords: [Violation] {
        state.withCriticalSection { $0.violations }
    }

    /// The deepest nesting of `receive` calls seen on one thread (2 means a value was delivered from inside the
    /// previous `receive`, typically by a reentrant `request`).
    public var maximumDepth: Int {
        state.withCriticalSection { $0.maximumDepth }
    }

    /// How many signals arrived while another thread was inside the subscriber.
    public var overlaps: Int {
        state.withCriticalSection { $0.overlaps }
    }

    /// The threads signals arrived on, in order of first arrival.
    public var threads: [RecordedThread] {
        var seen: [RecordedThread] = []
        for record in records where !seen.contains(record.thread) {
            seen.append(record.thread)
        }
        return seen
    }

    /// The history, one event per line.
    public var description: String {
        records.map(\.description).joined(separator: "\n")
    }

    // MARK: Driving demand

    /// Requests more values. Before the subscription has arrived, the demand is kept and requested with it.
    ///
    /// - Precondition: `demand` is not `.none` (Combine traps on a zero request).
    public func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "TestSubscriber.request(_:) needs a positive demand")
        let subscription = state.withCriticalSection { state -> Subscription? in
            state.requested += demand
            if state.subscription == nil { state.pendingDemand += demand }
            return state.subscription
        }
        subscription?.request(demand)
    }

    /// Cancels the subscription (every call is passed on: a correct subscription treats repeats as no-ops).
    public func cancel() {
        let subscription = state.withCriticalSection { $0.subscription }
        subscription?.cancel()
    }

    // MARK: Waiting (tests only, always with a timeout)

    /// Waits until `condition` holds for the records, or `timeout` seconds pass.
    ///
    /// - Returns: whether the condition holds.
    @discardableResult
    public func wait(
        timeout: TimeInterval = 30, until condition: ([RecordedEvent<Input, Failure>]) -> Bool
    ) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        changed.lock()
        defer { changed.unlock() }
        while !condition(records) {
            if !changed.wait(until: deadline) { return condition(records) }
        }
        return true
    }

    /// Waits until `condition` holds (it is evaluated after every signal), or `timeout` seconds pass.
    func waitUntil(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        changed.lock()
        defer { changed.unlock() }
        while !condition() {
            if !changed.wait(until: deadline) { return condition() }
        }
        return true
    }

    /// Waits until at least `count` values arrived (or a completion), at most `timeout` seconds.
    ///
    /// - Returns: whether at least `count` values arrived.
    @discardableResult
    public func waitForValues(_ count: Int, timeout: TimeInterval = 30) -> Bool {
        _ = waitUntil(timeout: timeout) { valueCount >= count || isCompleted }
        return valueCount >= count
    }

    /// Waits until the completion arrives, at most `timeout` seconds.
    @discardableResult
    public func waitForCompletion(timeout: TimeInterval = 30) -> Bool {
        waitUntil(timeout: timeout) { isCompleted }
    }

    // MARK: Subscriber

    /// Records the subscription, runs `onSubscription`, then requests the initial demand.
    public func receive(subscription: Subscription) {
        let thread = RecordedThread.current
        let time = scheduler?.now
        let lockHeld = CalloutCheck.heldByCurrentThread != 0
        let (isFirst, demand) = state.withCriticalSection { state -> (Bool, Subscribers.Demand) in
            let depth = state.enter(thread, with: "receive(subscription:)")
            defer { state.leave(thread) }
            state.records.append(RecordedEvent(event: .subscription, thread: thread, time: time, depth: depth))
            if lockHeld {
                state.violate(
                    "a signal delivered under an Untangle lock",
                    "receive(subscription:) delivered under an Untangle lock")
            }
            guard state.subscription == nil else {
                state.violate(
                    "a second receive(subscription:)",
                    "a second receive(subscription:) (the extra subscription was cancelled)")
                return (false, .none)
            }
            if state.delivered > 0 || state.completed {
                state.violate(
                    "receive(subscription:) after other signals", "receive(subscription:) arrived after other signals")
            }
            state.subscription = subscription
            let demand = state.pendingDemand + initialDemand
            state.pendingDemand = .none
            state.requested += initialDemand
            return (true, demand)
        }
        signalChange()
        guard isFirst else {
            subscription.cancel()
            return
        }
        onSubscription?(self, subscription)
        if demand > .none { subscription.request(demand) }
    }

    /// Records the value, runs `onValue`, and returns its demand (or `demandPerValue`).
    public func receive(_ input: Input) -> Subscribers.Demand {
        let thread = RecordedThread.current
        let time = scheduler?.now
        let lockHeld = CalloutCheck.heldByCurrentThread != 0
        state.withCriticalSection { state in
            let number = state.delivered + 1
            let depth = state.enter(thread, with: "value #\(number)")
            state.records.append(RecordedEvent(event: .value(input), thread: thread, time: time, depth: depth))
            state.delivered = number
            if lockHeld {
                state.violate(
                    "a signal delivered under an Untangle lock", "value #\(number) delivered under an Untangle lock")
            }
            if state.subscription == nil {
                state.violate(
                    "a value before receive(subscription:)", "value #\(number) arrived before receive(subscription:)")
            }
            if state.completed {
                state.violate("a value after the completion", "value #\(number) arrived after the completion")
            }
            if state.requested != .unlimited, state.requested < .max(number) {
                state.violate(
                    "a value beyond demand",
                    "value #\(number) arrived beyond demand: only \(state.requested) requested in total")
            }
        }
        signalChange()
        let demand = onValue?(self, input) ?? demandPerValue
        state.withCriticalSection { state in
            state.requested += demand
            state.leave(thread)
        }
        signalChange()
        return demand
    }

    /// Records the completion and runs `onCompletion`.
    public func receive(completion: Subscribers.Completion<Failure>) {
        let thread = RecordedThread.current
        let time = scheduler?.now
        let lockHeld = CalloutCheck.heldByCurrentThread != 0
        state.withCriticalSection { state in
            let depth = state.enter(thread, with: "receive(completion:)")
            defer { state.leave(thread) }
            state.records.append(
                RecordedEvent(event: .completion(completion), thread: thread, time: time, depth: depth))
            if lockHeld {
                state.violate(
                    "a signal delivered under an Untangle lock", "receive(completion:) delivered under an Untangle lock"
                )
            }
            if state.subscription == nil {
                state.violate(
                    "receive(completion:) before receive(subscription:)",
                    "receive(completion:) arrived before receive(subscription:)")
            }
            if state.completed {
                state.violate("a second receive(completion:)", "a second receive(completion:) (\(completion))")
            }
            state.completed = true
        }
        signalChange()
        onCompletion?(self, completion)
    }

    private func signalChange() {
        changed.lock()
        changed.broadcast()
        changed.unlock()
    }
}

extension TestSubscriber where Input: Equatable, Failure: Equatable {
    /// A readable description of how the history differs from `expected`, or `nil` if they are equal.
    ///
    /// ```swift
    /// if let diff = subscriber.diff(from: [.subscription, .value(1)]) { print(diff) }
    /// ```
    public func diff(from expected: [TestEvent<Input, Failure>]) -> String? {
        let actual = events
        if actual == expected { return nil }
        return HistoryDiff.describe(
            expected: expected.map(\.description), actual: actual.map(\.description),
            firstDifference: HistoryDiff.firstDifference(expected, actual))
    }

    /// Calls `report` with a readable diff if the history is not exactly `expected`.
    ///
    /// ```swift
    /// subscriber.assertEvents([.subscription, .value(1), .completion(.finished)]) { XCTFail($0) }
    /// ```
    public func assertEvents(_ expected: [TestEvent<Input, Failure>], report: (String) -> Void) {
        if let diff = diff(from: expected) { report(diff) }
    }
}

extension TestSubscriber {
    /// A readable diff between the history's descriptions (``TestEvent/description``) and `expected`, or `nil`
    /// if they are equal. Works for any value and failure type, e.g. `Error` failures.
    ///
    /// ```swift
    /// subscriber.assertDescriptions(["subscription", "value(1)", "failure(TestError(1))"]) { XCTFail($0) }
    /// ```
    public func diff(fromDescriptions expected: [String]) -> String? {
        let actual = events.map(\.description)
        if actual == expected { return nil }
        return HistoryDiff.describe(
            expected: expected, actual: actual,
            firstDifference: HistoryDiff.firstDifference(expected, actual))
    }

    /// Calls `report` with a readable diff if the history's descriptions are not exactly `expected`.
    public func assertDescriptions(_ expected: [String], report: (String) -> Void) {
        if let diff = diff(fromDescriptions: expected) { report(diff) }
    }

    /// Calls `report` with the list of contract violations, if the subscriber saw any.
    ///
    /// ```swift
    /// subscriber.assertNoViolations { XCTFail($0) }
    /// ```
    public func assertNoViolations(report: (String) -> Void) {
        let violations = violations
        if !violations.isEmpty {
            report("the publisher broke the contract:\n" + violations.map { "  - \($0)" }.joined(separator: "\n"))
        }
    }
}
