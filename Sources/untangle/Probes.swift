// Instruments that watch a stream from the subscriber's side: a log that checks every delivery against the
// contract (one at a time, in order, nothing after the completion), and a hand-written `Subscriber` that uses it.
// Both are written against Untangle's public API only, the way an app's own subscriber would be.

import Dispatch
import Foundation
import Untangle
import UntangleSync

/// The order a check expects a subscriber's values in.
enum ExpectedOrder: Sendable {
    /// 0, 1, 2, ...: nothing lost, nothing duplicated, nothing reordered.
    case ascending
    /// Values encode `sender << 32 | sequenceNumber`; each sender's numbers must arrive as 0, 1, 2, ... (senders
    /// may interleave with each other in any way).
    case perSender(count: Int)
    /// No order (the check verifies counts only).
    case any

    static func encode(sender: Int, sequence: Int) -> Int {
        sender << 32 | sequence
    }
}

/// Checks each delivery to one subscriber as it happens.
///
/// The overlap detector records which thread is inside `receive(_:)`, set on entry and cleared on exit, both under a
/// lock: if a delivery on another thread starts before the first one ended (the stream broke the rule "downstream
/// signals are serialized"), its entry finds the slot taken. The lock orders the checks; it cannot hide an
/// overlap, because the slot is held for the whole delivery, not just for the check. A delivery nested on the
/// *same* thread (a subscriber whose own `send` comes back to it, as in cross-wired subjects) is not an overlap:
/// Combine delivers reentrant sends depth-first on the sending thread.
final class DeliveryLog: Sendable {
    private struct State {
        /// The thread delivering, and how deeply nested on it.
        var insideThread: UInt?
        var depth = 0
        /// Deliveries from other threads that started while `insideThread` was inside (violations).
        var intruders = 0
        var count = 0
        /// The next value `.ascending` expects; after a gap it resynchronizes, so one gap is one violation.
        var next = 0
        var nextPerSender: [Int]
        var completions = 0
    }

    let label: String
    private let order: ExpectedOrder
    private let violations: Violations
    private let state: LockedBox<State>

    init(_ label: String, order: ExpectedOrder, violations: Violations) {
        self.label = label
        self.order = order
        self.violations = violations
        if case .perSender(let senders) = order {
            state = LockedBox(State(nextPerSender: Array(repeating: 0, count: senders)))
        } else {
            state = LockedBox(State(nextPerSender: []))
        }
    }

    /// Call first thing in `receive(_:)`.
    func begin(_ value: Int) {
        let thread = currentThreadKey()
        let problem = state.withLock { state -> String? in
            state.count += 1
            switch state.insideThread {
            case nil:
                state.insideThread = thread
                state.depth = 1
            case thread?:
                state.depth += 1
            case _?:
                state.intruders += 1
                return "\(label): overlapping delivery (value \(value) arrived on one thread while another thread "
                    + "was inside receive)"
            }
            if state.completions > 0 {
                return "\(label): value \(value) delivered after the completion"
            }
            switch order {
            case .ascending:
                let expected = state.next
                state.next = value + 1
                if value != expected {
                    return "\(label): got \(value), expected \(expected) (lost, duplicated or reordered value)"
                }
            case .perSender:
                let sender = value >> 32
                let sequence = value & 0xFFFF_FFFF
                guard state.nextPerSender.indices.contains(sender) else {
                    return "\(label): value from unknown sender \(sender)"
                }
                defer { state.nextPerSender[sender] = sequence + 1 }
                if sequence != state.nextPerSender[sender] {
                    return "\(label): sender \(sender) value #\(sequence) arrived when #\(state.nextPerSender[sender]) "
                        + "was expected (lost or reordered)"
                }
            case .any:
                break
            }
            return nil
        }
        if let problem {
            violations.record(problem)
        }
    }

    /// Call last thing in `receive(_:)`.
    func end() {
        let thread = currentThreadKey()
        state.withLock { state in
            if state.insideThread == thread {
                state.depth -= 1
                if state.depth == 0 {
                    state.insideThread = nil
                }
            } else {
                state.intruders -= 1
            }
        }
    }

    /// Call in `receive(completion:)`.
    func completion() {
        let problem = state.withLock { state -> String? in
            state.completions += 1
            if let inside = state.insideThread, inside != currentThreadKey() {
                return "\(label): completion delivered while another thread was inside receive"
            }
            return state.completions > 1 ? "\(label): completion delivered \(state.completions) times" : nil
        }
        if let problem {
            violations.record(problem)
        }
    }

    /// Values received so far.
    var count: Int { state.withLock { $0.count } }

    /// Completions received so far.
    var completions: Int { state.withLock { $0.completions } }
}

/// A hand-written subscriber of `Int`s: the kind of subscriber the demand seed (002) is about. It asks for
/// `initialDemand` when subscribed (nil: nothing), checks every delivery with a ``DeliveryLog``, lets the check
/// decide the demand returned from each `receive(_:)`, and exposes `request`/`cancel` so that other threads can
/// drive its subscription.
final class Probe: Subscriber, Cancellable, @unchecked Sendable {
    // @unchecked: the only mutable state is the subscription, kept in a LockedBox (Subscription is not Sendable,
    // but Untangle's subscriptions may be used from any thread).
    typealias Input = Int
    typealias Failure = Never

    let log: DeliveryLog
    /// Signalled once per completion: checks wait on it (with the deadline) instead of sleeping.
    let finished = DispatchSemaphore(value: 0)
    private let initialDemand: Subscribers.Demand?
    private let onValue: @Sendable (Probe, Int) -> Subscribers.Demand
    private let subscription = LockedBox<Subscription?>(nil)
    private let violations: Violations

    init(
        log: DeliveryLog, violations: Violations, initialDemand: Subscribers.Demand?,
        onValue: @escaping @Sendable (Probe, Int) -> Subscribers.Demand = { _, _ in .none }
    ) {
        self.log = log
        self.violations = violations
        self.initialDemand = initialDemand
        self.onValue = onValue
    }

    func receive(subscription: Subscription) {
        let first = self.subscription.withLock { stored -> Bool in
            guard stored == nil else { return false }
            stored = subscription
            return true
        }
        guard first else {
            violations.record("\(log.label): received a second subscription")
            subscription.cancel()
            return
        }
        // Requesting here, from inside receive(subscription:), is how most subscribers start a stream.
        if let initialDemand {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        log.begin(input)
        defer { log.end() }
        return onValue(self, input)
    }

    func receive(completion: Subscribers.Completion<Never>) {
        log.completion()
        finished.signal()
    }

    /// Requests from the subscription, from any thread (reads it under the lock, calls it after unlocking).
    func request(_ demand: Subscribers.Demand) {
        subscription.withLock { $0 }?.request(demand)
    }

    /// Cancels the subscription, from any thread.
    func cancel() {
        subscription.withLock { $0 }?.cancel()
    }
}

/// A number identifying the calling thread (compared, never dereferenced).
func currentThreadKey() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}
