import Untangle
import UntangleSync

/// One run of the closure-based ``retry(maxAttempts:backoff:scheduler:options:shouldRetry:operation:completion:)``:
/// the attempt counter, and whether the run has ended or was cancelled.
///
/// ```swift
/// let run = RetryRun(...); run.start()
/// ```
///
/// **Thread safety:** `cancel` and the `done` callbacks may be called from any thread; each attempt's first result
/// counts and later ones are ignored; the operation and the completion run outside the lock.
final class RetryRun<Context: Scheduler, Success, Failure: Error>: Cancellable, @unchecked Sendable {
    // @unchecked Sendable: immutable configuration plus `state`, a LockedBox.

    private struct State {
        var attempt = 0
        /// The last attempt whose result was taken (later results of the same attempt are ignored).
        var resolved = 0
        var ended = false
        var operation: ((Int, @escaping (Result<Success, Failure>) -> Void) -> Void)?
        var completion: ((Result<Success, Failure>) -> Void)?
    }

    private let maxAttempts: Int
    private let backoff: RetryBackoff
    private let scheduler: Context
    private let options: Context.SchedulerOptions?
    private let shouldRetry: (Failure) -> Bool
    private let state: LockedBox<State>

    init(
        maxAttempts: Int, backoff: RetryBackoff, scheduler: Context, options: Context.SchedulerOptions?,
        shouldRetry: @escaping (Failure) -> Bool,
        operation: @escaping (Int, @escaping (Result<Success, Failure>) -> Void) -> Void,
        completion: @escaping (Result<Success, Failure>) -> Void
    ) {
        self.maxAttempts = maxAttempts
        self.backoff = backoff
        self.scheduler = scheduler
        self.options = options
        self.shouldRetry = shouldRetry
        state = LockedBox(tracking: State(operation: operation, completion: completion))
    }

    func start() {
        scheduler.schedule(options: options) { self.attempt() }
    }

    private func attempt() {
        let next = state.withCriticalSection {
            state -> (Int, (Int, @escaping (Result<Success, Failure>) -> Void) -> Void)? in
            guard !state.ended, let operation = state.operation else { return nil }
            state.attempt += 1
            return (state.attempt, operation)
        }
        guard let (number, operation) = next else { return }
        CalloutCheck.assertNoLockHeld("retry running the operation")
        operation(number) { result in self.finished(attempt: number, result) }
    }

    private func finished(attempt number: Int, _ result: Result<Success, Failure>) {
        // The first result of the current attempt is taken; shouldRetry is user code, so it runs after unlocking.
        let taken = state.withCriticalSection { state -> Bool in
            guard !state.ended, state.attempt == number, state.resolved < number else { return false }
            state.resolved = number
            return true
        }
        guard taken else { return }
        var retry = false
        if case .failure(let error) = result, number < maxAttempts {
            CalloutCheck.assertNoLockHeld("retry asking shouldRetry")
            retry = shouldRetry(error)
        }
        if retry {
            let delay = backoff.delay(beforeRetry: number)
            scheduler.schedule(
                after: scheduler.now.advanced(by: .seconds(delay)), tolerance: scheduler.minimumTolerance,
                options: options
            ) { self.attempt() }
            return
        }
        let ending = state.withCriticalSection {
            state -> (completion: ((Result<Success, Failure>) -> Void)?, released: Any?) in
            guard !state.ended else { return (nil, nil) }
            state.ended = true
            defer {
                state.completion = nil
                state.operation = nil
            }
            return (state.completion, state.operation)
        }
        withExtendedLifetime(ending.released) {}
        CalloutCheck.assertNoLockHeld("retry calling the completion")
        ending.completion?(result)
    }

    func cancel() {
        let released = state.withCriticalSection { state -> (Any?, Any?) in
            state.ended = true
            defer {
                state.completion = nil
                state.operation = nil
            }
            return (state.completion, state.operation)
        }
        withExtendedLifetime(released) {}
    }
}
