import Untangle

/// Runs an asynchronous operation, retrying it on failure after a backoff delay on `scheduler`, up to
/// `maxAttempts` attempts in all; then calls `completion` with the first success or the last failure.
///
/// The replacement for hand-written retry loops (`asyncAfter` recursion that cannot be cancelled, a counter shared
/// between threads without a lock, a completion called twice). The publisher equivalent is
/// ``Untangle/Publisher/retry(_:backoff:scheduler:options:shouldRetry:)``.
///
/// ```swift
/// let task = retry(maxAttempts: 4, backoff: .exponential(initial: 0.5, jitter: 1), scheduler: DispatchQueue.global(),
///                  operation: { attempt, done in api.fetch { done($0) } },
///                  completion: { result in print(result) })
/// // later, if the screen goes away:
/// task.cancel()
/// ```
///
/// - The first attempt is scheduled at once on `scheduler`; retry `n` is scheduled `backoff.delay(beforeRetry: n)`
///   seconds after attempt `n` failed. `operation` receives the attempt number (from 1) and a `done` callback
///   that may be called from any thread; only the first call per attempt counts.
/// - A failure is retried only if `shouldRetry` returns true (default: always) and attempts remain.
/// - `completion` runs once, on the thread that reported the final result, unless the run was cancelled first.
/// - The returned `Cancellable` stops further attempts and drops the completion; it does not cancel the operation
///   already running (the operation's own cancellation is the caller's). Discarding it does not cancel the run.
///
/// **Thread safety:** `done` and `cancel()` may be called from any thread. The operation, `shouldRetry` and the
/// completion run outside every library lock.
///
/// - Precondition: `maxAttempts >= 1`.
@discardableResult
public func retry<Context: Scheduler, Success, Failure: Error>(
    maxAttempts: Int, backoff: RetryBackoff, scheduler: Context, options: Context.SchedulerOptions? = nil,
    shouldRetry: @escaping (Failure) -> Bool = { _ in true },
    operation: @escaping (_ attempt: Int, _ done: @escaping (Result<Success, Failure>) -> Void) -> Void,
    completion: @escaping (Result<Success, Failure>) -> Void
) -> Cancellable {
    precondition(maxAttempts >= 1, "retry(maxAttempts:...): maxAttempts must be at least 1 (got \(maxAttempts))")
    let run = RetryRun(
        maxAttempts: maxAttempts, backoff: backoff, scheduler: scheduler, options: options, shouldRetry: shouldRetry,
        operation: operation, completion: completion)
    run.start()
    return run
}
