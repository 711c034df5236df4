import Untangle

extension Publisher {
    /// Retries this publisher up to `retries` times after failures, waiting `backoff.delay(beforeRetry: n)` on
    /// `scheduler` before retry `n`; failures for which `shouldRetry` returns false, and the failure after the last
    /// retry, fail the result.
    ///
    /// Built on ``retry(when:)``. Unlike Combine's `retry(_:)`, which resubscribes at once (hammering a failing
    /// server in a tight loop), the wait grows exponentially and jitter spreads clients apart.
    ///
    /// ```swift
    /// let cancellable = api.fetch()
    ///     .retry(3, backoff: .exponential(initial: 0.5, maxDelay: 10, jitter: 1), scheduler: DispatchQueue.global())
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as for ``retry(when:)``: the outstanding demand carries over to each new attempt.
    /// **Thread safety:** as for ``retry(when:)``; new attempts are subscribed on `scheduler`. `shouldRetry` runs on
    /// the failing attempt's thread.
    ///
    /// - Precondition: `retries >= 0`.
    public func retry<Context: Scheduler>(
        _ retries: Int, backoff: RetryBackoff, scheduler: Context, options: Context.SchedulerOptions? = nil,
        shouldRetry: ((Failure) -> Bool)? = nil
    ) -> Publishers.RetryWhen<Self, AnyPublisher<Void, Failure>> {
        let shouldRetry = shouldRetry ?? { _ in true }
        precondition(retries >= 0, "retry(_:backoff:scheduler:): retries must not be negative (got \(retries))")
        return retry(when: { errors in
            errors
                .scan((retry: 0, error: Failure?.none)) { previous, error in (previous.retry + 1, error) }
                .setFailureType(to: Failure.self)
                .flatMap { attempt -> AnyPublisher<Void, Failure> in
                    guard let error = attempt.error else { return Empty().eraseToAnyPublisher() }
                    guard attempt.retry <= retries, shouldRetry(error) else {
                        return Fail(error: error).eraseToAnyPublisher()
                    }
                    let delay = backoff.delay(beforeRetry: attempt.retry)
                    return Just(())
                        .setFailureType(to: Failure.self)
                        .delay(for: .seconds(delay), scheduler: scheduler, options: options)
                        .eraseToAnyPublisher()
                }
                .eraseToAnyPublisher()
        })
    }
}
