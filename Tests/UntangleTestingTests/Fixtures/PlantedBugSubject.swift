import Foundation
import Untangle
import UntangleSync

/// A hand-written subject (one subscriber per instance, values dropped without demand, like PassthroughSubject)
/// in a correct version and with one classic mistake planted at a time (`bug`), for the verifier's gallery.
///
/// The correct version keeps all state in one LockedBox and serializes delivery with a queue and a draining flag:
/// a thread that sends while another delivers queues its value and returns, the delivering thread drains the
/// queue. It decides under the lock and calls the subscriber after unlocking.
///
/// The planted races are logical races only: every shared variable is still read and written under a lock (or
/// through an atomic), so ThreadSanitizer stays quiet and CI can run the gallery under it. What breaks is the
/// protocol: a read and a write split into two critical sections, or a delivery that does not wait for the queue.
final class PlantedBugSubject: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never

    enum Bug: String, CaseIterable, Sendable {
        /// Correct.
        case none
        /// Delivers every value, demand or not.
        case moreThanDemanded
        /// `cancel()` sets a flag nobody reads: delivery goes on.
        case valueAfterCancel
        /// Every `finish()` delivers a completion.
        case doubleCompletion
        /// `send` after `finish()` still delivers.
        case valueAfterCompletion
        /// `demand += n` as a read and a write in two separate critical sections: concurrent requests get lost.
        /// The thread yields the processor in between, as a method that does some work there sooner or later does
        /// (with nothing in between, the verifier catches it only in some runs: see Testing.md, "What the verifier
        /// can and cannot see").
        case unguardedDemand
        /// Sends `receive(subscription:)` twice (the second one a spare subscription).
        case secondSubscription
        /// Checks and takes demand under the lock, then calls the subscriber from whichever thread called `send`:
        /// two threads can be inside `receive` at once.
        case unserializedDelivery
        /// Holds a recursive lock across `receive` and takes it in `cancel()`: a cancel from another thread waits
        /// for the delivery in progress.
        case lockHeldAcrossReceive
    }

    /// The subscription, weakly: the subscriber owns it (so the verifier's release rules hold).
    private struct Current {
        weak var subscription: PlantedSubscription?
    }

    let bug: Bug
    private let current = LockedBox(Current())

    init(bug: Bug) { self.bug = bug }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        let subscription = PlantedSubscription(subscriber: AnySubscriber(subscriber), bug: bug)
        current.withLock { $0.subscription = subscription }
        subscriber.receive(subscription: subscription)
        if bug == .secondSubscription {
            subscriber.receive(subscription: PlantedSubscription(subscriber: nil, bug: bug))
        }
    }

    /// Sends a value to the subscriber (dropped without demand).
    func send(_ value: Int) {
        current.withLock { $0.subscription }?.send(value)
    }

    /// Completes the subscriber.
    func finish() {
        current.withLock { $0.subscription }?.finish()
    }
}

private final class PlantedSubscription: Subscription, @unchecked Sendable {
    private struct State {
        var subscriber: AnySubscriber<Int, Never>?
        var demand = Subscribers.Demand.none
        var queue: [Int] = []
        var draining = false
        var completion: Subscribers.Completion<Never>?
        var completed = false
        var cancelled = false
    }

    private let bug: PlantedBugSubject.Bug
    private let state: LockedBox<State>
    /// Only for `.lockHeldAcrossReceive`.
    private let recursiveLock = NSRecursiveLock()

    init(subscriber: AnySubscriber<Int, Never>?, bug: PlantedBugSubject.Bug) {
        self.bug = bug
        state = LockedBox(State(subscriber: subscriber))
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        if bug == .unguardedDemand {
            let current = state.withLock { $0.demand }
            sched_yield()
            state.withLock { $0.demand = current + demand }
        } else {
            state.withLock { $0.demand += demand }
        }
        drain()
    }

    func send(_ value: Int) {
        switch bug {
        case .unserializedDelivery:
            let target = state.withLock { state -> AnySubscriber<Int, Never>? in
                guard !state.completed, state.demand > .none, let subscriber = state.subscriber else { return nil }
                state.demand -= 1
                return subscriber
            }
            guard let target else { return }
            let more = target.receive(value)
            if more > .none { state.withLock { $0.demand += more } }
        case .lockHeldAcrossReceive:
            recursiveLock.lock()
            defer { recursiveLock.unlock() }
            enqueue(value)
        default:
            enqueue(value)
        }
    }

    private func enqueue(_ value: Int) {
        let accepted = state.withLock { state -> Bool in
            guard state.subscriber != nil else { return false }
            if state.completed, bug != .valueAfterCompletion { return false }
            if bug != .moreThanDemanded, state.demand - state.queue.count == .none { return false }
            state.queue.append(value)
            return true
        }
        if accepted { drain() }
    }

    func finish() {
        state.withLock { state in
            if state.completed, bug != .doubleCompletion { return }
            state.completed = true
            state.completion = .finished
        }
        drain()
    }

    private enum Next {
        case value(AnySubscriber<Int, Never>, Int)
        case completion(AnySubscriber<Int, Never>)
        case idle
    }

    // Whoever finds nobody draining becomes the drainer and delivers until nothing is left; everybody else only
    // queues. A request or send made from inside `receive` finds `draining` set and returns at once.
    private func drain() {
        let claimed = state.withLock { state -> Bool in
            if state.draining { return false }
            state.draining = true
            return true
        }
        guard claimed else { return }
        var more = Subscribers.Demand.none
        while true {
            let next = state.withLock { state -> Next in
                state.demand += more
                if let subscriber = state.subscriber, !state.queue.isEmpty,
                    state.demand > .none || bug == .moreThanDemanded
                {
                    if state.demand > .none { state.demand -= 1 }
                    return .value(subscriber, state.queue.removeFirst())
                }
                if let subscriber = state.subscriber, state.queue.isEmpty, state.completion != nil {
                    state.completion = nil
                    if bug != .doubleCompletion && bug != .valueAfterCompletion { state.subscriber = nil }
                    state.draining = false
                    return .completion(subscriber)
                }
                state.draining = false
                return .idle
            }
            switch next {
            case .value(let subscriber, let value):
                more = subscriber.receive(value)
            case .completion(let subscriber):
                subscriber.receive(completion: .finished)
                return
            case .idle:
                return
            }
        }
    }

    func cancel() {
        if bug == .lockHeldAcrossReceive { recursiveLock.lock() }
        defer { if bug == .lockHeldAcrossReceive { recursiveLock.unlock() } }
        let released = state.withLock { state -> AnySubscriber<Int, Never>? in
            state.cancelled = true
            if bug == .valueAfterCancel { return nil }
            state.queue.removeAll()
            state.completed = true
            defer { state.subscriber = nil }
            return state.subscriber
        }
        _ = released  // released here, after unlocking
    }
}
