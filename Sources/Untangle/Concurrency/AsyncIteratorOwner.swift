/// Owns an iterator's ``AsyncValueSubscriber`` on behalf of the iterator's copies: when the last copy of the iterator
/// goes away (the `for await` loop ended with `break`, `return` or a throw), the subscription is cancelled.
///
/// ```swift
/// let owner = AsyncIteratorOwner(subscribingTo: Just(1), window: 1)
/// let value = await owner.next()   // nil once the publisher finished
/// ```
///
/// **Demand:** as ``AsyncValueSubscriber`` with the given window: `.max(1)` per `next()` for a window of 1; a larger
/// window requests that many values ahead, topped up once half of it has been taken.
/// **Thread safety:** `next()` may run on any task, one call at a time; the deinit's cancel may run on any thread.
@usableFromInline
final class AsyncIteratorOwner<Input, Failure: Error>: @unchecked Sendable {
    @usableFromInline let subscriber: AsyncValueSubscriber<Input, Failure>

    @inlinable
    init<Upstream: Publisher>(subscribingTo upstream: Upstream, window: Int)
    where Upstream.Output == Input, Upstream.Failure == Failure {
        subscriber = AsyncValueSubscriber(window: window)
        upstream.subscribe(subscriber)
    }

    deinit {
        subscriber.cancel()
    }

    /// The next value, the failure (once), or nil. Cancelling the awaiting task cancels the upstream and returns nil.
    @inlinable
    func next() async -> Result<Input, Failure>? {
        // The fast paths, without a cancellation handler (registering one costs two atomic updates of the task's
        // status), only a check that the task is not cancelled yet: a value the window already holds, the end, or
        // the value the call's own request brings at once (a synchronous upstream delivers during `request`). The
        // call's first critical section takes a kept value or counts the call and decides its request, which is made
        // after unlocking (`start`); one more takes the value the request brought (`takeKept`). A cancellation
        // that comes meanwhile is seen when the handler is registered (it then runs at once) or by the next call.
        if Task.isCancelled {
            subscriber.cancel()
            return nil
        }
        let subscriber = subscriber
        let requested: Bool
        switch subscriber.start() {
        case .ready(let result):
            return result
        case .requested:
            if let value = subscriber.takeKept() { return .success(value) }
            requested = true
        case .wait:
            requested = false
        }
        // The handler runs at once if the task is already cancelled; `take` then finds the subscriber ended.
        return await withTaskCancellationHandler {
            await subscriber.take(requested: requested)
        } onCancel: {
            subscriber.cancel()
        }
    }
}
