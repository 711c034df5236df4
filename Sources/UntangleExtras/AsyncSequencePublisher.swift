import Untangle
import UntangleSync

extension AsyncSequence {
    /// A publisher of this sequence's elements, pulled one at a time as the subscriber's demand allows.
    ///
    /// ```swift
    /// let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    /// let cancellable = stream.publisher
    ///     .assertNoFailure()
    ///     .sink { print($0) }
    /// continuation.yield(1)   // prints 1
    /// continuation.finish()
    /// ```
    ///
    /// **Demand:** see ``AsyncSequencePublisher``.
    /// **Thread safety:** see ``AsyncSequencePublisher``.
    public var publisher: AsyncSequencePublisher<Self> {
        AsyncSequencePublisher(self)
    }
}

/// A publisher that iterates an `AsyncSequence` in a task, one element per unit of demand.
///
/// Each subscription makes its own iterator and runs it in its own `Task`, started on the subscriber's first request.
/// The task asks the sequence for the next element only when the subscriber has demand for it, so a slow subscriber
/// never makes the sequence run ahead. When the sequence ends, the subscriber receives `.finished`; when it throws,
/// the error. Cancelling the subscription cancels the task (an iterator waiting in `next()` sees the task
/// cancellation, as `AsyncStream` does) and nothing more reaches the subscriber. An iterator that is not inside
/// `next()` when the cancel comes is not asked again (that would pull an element nobody demanded), so the sequence
/// learns of the end only when it is released: an `AsyncStream`'s `onTermination` then runs when the stream itself
/// goes away, not at the cancel.
///
/// The failure type is `any Error` for every sequence, throwing or not (an `AsyncSequence` declares whether it can
/// throw only from Swift 6's `Failure`, on recent OS versions); for a sequence that cannot throw, `assertNoFailure()`
/// or `replaceError(with:)` make it a `Never`-failing publisher.
///
/// Apple's Combine has no such publisher; this is part of `UntangleExtras`.
///
/// ```swift
/// let numbers = AsyncStream<Int> { continuation in
///     for i in 1...3 { continuation.yield(i) }
///     continuation.finish()
/// }
/// let cancellable = AsyncSequencePublisher(numbers)
///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })   // 1, 2, 3, finished (later)
/// ```
///
/// **Demand:** one `next()` on the sequence per unit of demand; the demand a subscriber returns from `receive(_:)`
/// counts too. Nothing is pulled before the first request.
/// **Thread safety:** `subscribe`, `request` and `cancel` may be called from any thread. Values and the completion
/// are delivered from the subscription's task, one at a time, after `receive(subscription:)` has returned. No lock
/// is held across an await or a callout. After `cancel()` returns, nothing reaches the subscriber.
public struct AsyncSequencePublisher<Base: AsyncSequence>: Publisher {
    /// The kind of values published by this publisher: the sequence's elements.
    public typealias Output = Base.Element

    /// The kind of errors this publisher might publish: whatever the sequence throws.
    public typealias Failure = any Error

    /// The sequence this publisher iterates, once per subscription.
    public let base: Base

    /// Creates a publisher of the sequence's elements.
    ///
    /// - Parameter base: The sequence to iterate, once per subscription.
    @inlinable
    public init(_ base: Base) {
        self.base = base
    }

    /// Attaches a subscriber; its task starts on its first request.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Base.Element, S.Failure == any Error {
        let subscription = AsyncSequenceSubscription(downstream: subscriber, base: base)
        CalloutCheck.assertNoLockHeld("AsyncSequencePublisher delivering receive(subscription:)")
        subscriber.receive(subscription: subscription)
        subscription.subscriptionCalloutReturned()
    }
}

// The subscription and its task share this object; the base sequence and its iterator are only touched by the task
// (made there, used there), so they need not be Sendable.
//
// Performance: `@inlinable`, so that the subscribing module specializes the task's loop for the sequence and the
// subscriber. Compiled once here, every element ran unspecialized generic code (the iterator's `next()` through its
// witness, the state through runtime metadata lookups: about a third of `asyncstream-publisher`'s time).
@usableFromInline
final class AsyncSequenceSubscription<Base: AsyncSequence, Downstream: Subscriber>: Subscription,
    CustomStringConvertible, @unchecked Sendable
where Downstream.Input == Base.Element, Downstream.Failure == any Error {
    @usableFromInline
    struct State {
        @usableFromInline var downstream: Downstream?
        @usableFromInline var demand = Subscribers.Demand.none
        /// `receive(subscription:)` returned: the task may deliver.
        @usableFromInline var calloutReturned = false
        @usableFromInline var started = false
        @usableFromInline var task: Task<Void, Never>?
        /// The task, waiting for demand.
        @usableFromInline var parked: UnsafeContinuation<Bool, Never>?

        @inlinable init(downstream: Downstream) { self.downstream = downstream }
    }

    @usableFromInline let state: LockedBox<State>
    @usableFromInline let base: Base

    @inlinable
    init(downstream: Downstream, base: Base) {
        state = LockedBox(tracking: State(downstream: downstream))
        self.base = base
    }

    @inlinable
    func subscriptionCalloutReturned() {
        let start = state.withCriticalSection { state -> Bool in
            state.calloutReturned = true
            return shouldStart(&state)
        }
        if start { startTask() }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let (start, parked) = state.withCriticalSection { state -> (Bool, UnsafeContinuation<Bool, Never>?) in
            guard state.downstream != nil else { return (false, nil) }
            state.demand += demand
            // A parked task is resumed with one unit of the new demand, taken here as `takeOneDemand` would.
            let parked = state.parked
            if parked != nil {
                state.parked = nil
                state.demand -= 1
            }
            return (shouldStart(&state), parked)
        }
        if start { startTask() }
        parked?.resume(returning: true)
    }

    @inlinable
    func cancel() {
        let (released, task, parked) = state.withCriticalSection {
            state -> (Downstream?, Task<Void, Never>?, UnsafeContinuation<Bool, Never>?) in
            defer {
                state.downstream = nil
                state.task = nil
                state.parked = nil
            }
            return (state.downstream, state.task, state.parked)
        }
        withExtendedLifetime(released) {}
        task?.cancel()
        parked?.resume(returning: false)
    }

    @usableFromInline var description: String { "AsyncSequencePublisher" }

    @inlinable
    func shouldStart(_ state: inout State) -> Bool {
        guard state.calloutReturned, !state.started, state.demand > .none, state.downstream != nil else { return false }
        state.started = true
        return true
    }

    @inlinable
    func startTask() {
        let body = AsyncSequenceTaskBody { await self.run() }
        let task = Task { await body.run() }
        let stillLive = state.withCriticalSection { state -> Bool in
            guard state.downstream != nil else { return false }
            state.task = task
            return true
        }
        if !stillLive { task.cancel() }
    }

    @inlinable
    func run() async {
        var iterator = base.makeAsyncIterator()
        do {
            while await takeOneDemand() {
                guard let element = try await iterator.next() else {
                    finish(.finished)
                    return
                }
                guard let downstream = state.withCriticalSection({ $0.downstream }) else { return }
                CalloutCheck.assertNoLockHeld("AsyncSequencePublisher delivering a value")
                let more = downstream.receive(element)
                if more > .none {
                    state.withCriticalSection { state in
                        if state.downstream != nil { state.demand += more }
                    }
                }
            }
        } catch {
            finish(.failure(error))
        }
    }

    /// Waits until there is demand (and takes one unit of it); false once cancelled.
    @inlinable
    func takeOneDemand() async -> Bool {
        // Usually there is demand already (a sink's `.unlimited`): taken without forming a continuation.
        let ready = state.withCriticalSection { state -> Bool? in
            guard state.downstream != nil else { return false }
            guard state.demand > .none else { return nil }
            state.demand -= 1
            return true
        }
        if let ready { return ready }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            let ready = state.withCriticalSection { state -> Bool? in
                guard state.downstream != nil else { return false }
                guard state.demand > .none else {
                    state.parked = continuation
                    return nil
                }
                state.demand -= 1
                return true
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    @inlinable
    func finish(_ completion: Subscribers.Completion<any Error>) {
        let downstream = state.withCriticalSection { state -> Downstream? in
            defer {
                state.downstream = nil
                state.task = nil
            }
            return state.downstream
        }
        // A cancelled subscription has no downstream any more: the error a cancelled iterator may throw is dropped.
        guard let downstream else { return }
        CalloutCheck.assertNoLockHeld("AsyncSequencePublisher delivering its completion")
        downstream.receive(completion: completion)
    }
}

// The task's body, built where the subscription's generic types are known and carried into `Task` as one non-generic
// value (a generic class captured directly would drag its metatypes into the `Sendable` closure). The subscription it
// calls is thread-safe; the unchecked part is only that the closure is not annotated `Sendable`.
@usableFromInline
struct AsyncSequenceTaskBody: @unchecked Sendable {
    @usableFromInline let run: () async -> Void
    @inlinable init(run: @escaping () async -> Void) { self.run = run }
}
