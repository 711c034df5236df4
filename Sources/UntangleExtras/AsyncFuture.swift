import Untangle
import UntangleSync

/// A publisher that runs an `async` operation for each subscriber and publishes its result: `Deferred { Future }` for
/// async code, with cancellation.
///
/// Each subscription starts its own `Task` running the operation as soon as it is subscribed; the result waits for
/// the subscriber's demand, then the subscriber receives the value and `.finished` (or the thrown error). Cancelling
/// the subscription cancels the task, and nothing more reaches the subscriber (an error the cancelled operation throws,
/// such as `CancellationError`, is dropped).
///
/// Apple's Combine has no such publisher; this is part of `UntangleExtras`. The name follows the common
/// `AsyncFuture` naming of such bridges; for an eager, shared future see the `Future` initializers that take an
/// `async` closure.
///
/// ```swift
/// let profile = AsyncFuture { try await api.fetchProfile() }   // AsyncFuture<Profile, any Error>
/// let cancellable = profile.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
/// cancellable.cancel()   // cancels the fetch's task
/// ```
///
/// **Demand:** the operation starts on subscription, whatever the demand; its single value waits for the first request.
/// **Thread safety:** `subscribe`, `request` and `cancel` may be called from any thread. The result is delivered from
/// the operation's task, or from the requesting thread if it had to wait for demand; one signal at a time, after
/// `receive(subscription:)` returned. After `cancel()` returns, nothing reaches the subscriber.
public struct AsyncFuture<Output, Failure: Error>: Publisher {
    private let operation: @Sendable () async -> Result<Output, Failure>

    /// Creates a publisher that runs a non-throwing async operation for each subscriber.
    ///
    /// - Parameter operation: Runs once per subscription, in a task of its own.
    public init(_ operation: @escaping @Sendable () async -> Output) where Failure == Never {
        self.operation = { .success(await operation()) }
    }

    /// Creates a publisher that runs a throwing async operation for each subscriber; what it throws is the failure.
    ///
    /// - Parameter operation: Runs once per subscription, in a task of its own.
    public init(_ operation: @escaping @Sendable () async throws -> Output) where Failure == any Error {
        self.operation = {
            do {
                return .success(try await operation())
            } catch {
                return .failure(error)
            }
        }
    }

    /// Attaches a subscriber and starts the operation's task for it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = AsyncFutureSubscription(downstream: subscriber)
        subscription.emitter.start(subscription: subscription)
        subscription.run(operation)
    }
}

private final class AsyncFutureSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    @unchecked Sendable
{
    let emitter: Emitter<Downstream>
    private let task = LockedBox<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))

    init(downstream: Downstream) {
        emitter = Emitter(downstream: downstream, policy: .unbounded)
    }

    func run(_ operation: @escaping @Sendable () async -> Result<Downstream.Input, Downstream.Failure>) {
        let body = TaskBody { self.deliver(await operation()) }
        let running = Task { await body.run() }
        let cancelled = task.withCriticalSection { task -> Bool in
            if !task.cancelled { task.task = running }
            return task.cancelled
        }
        if cancelled { running.cancel() }
    }

    private func deliver(_ result: Result<Downstream.Input, Downstream.Failure>) {
        emitter.resolve(result)
        task.withCriticalSection { $0.task = nil }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
    }

    func cancel() {
        emitter.cancel()
        let running = task.withCriticalSection { task -> Task<Void, Never>? in
            task.cancelled = true
            defer { task.task = nil }
            return task.task
        }
        running?.cancel()
    }

    var description: String { "AsyncFuture" }
}

// The task's body, built where the subscription's generic types are known and carried into `Task` as one non-generic
// value (a generic class captured directly would drag its metatypes into the `Sendable` closure). The subscription it
// calls is thread-safe; the unchecked part is only that the closure is not annotated `Sendable`.
private struct TaskBody: @unchecked Sendable {
    let run: () async -> Void
}
