/// Owns an iterator's ``AsyncValueSubscriber`` on behalf of the iterator's copies: when the last copy of the iterator
/// goes away (the `for await` loop ended with `break`, `return` or a throw), the subscription is cancelled.
///
/// ```swift
/// let owner = AsyncIteratorOwner(subscriber: AsyncValueSubscriber<Int, Never>())
/// let value = await owner.next()   // nil once the publisher finished
/// ```
///
/// **Demand:** as ``AsyncValueSubscriber``: `.max(1)` per `next()`.
/// **Thread safety:** `next()` may run on any task, one call at a time; the deinit's cancel may run on any thread.
final class AsyncIteratorOwner<Input, Failure: Error>: @unchecked Sendable {
    private let subscriber: AsyncValueSubscriber<Input, Failure>

    init<Upstream: Publisher>(subscribingTo upstream: Upstream)
    where Upstream.Output == Input, Upstream.Failure == Failure {
        subscriber = AsyncValueSubscriber()
        upstream.subscribe(subscriber)
    }

    deinit {
        subscriber.cancel()
    }

    /// The next value, the failure (once), or nil. Cancelling the awaiting task cancels the upstream and returns nil.
    func next() async -> Result<Input, Failure>? {
        let subscriber = subscriber
        // The handler runs at once if the task is already cancelled; `next()` then finds the subscriber ended.
        return await withTaskCancellationHandler {
            await subscriber.next()
        } onCancel: {
            subscriber.cancel()
        }
    }
}
