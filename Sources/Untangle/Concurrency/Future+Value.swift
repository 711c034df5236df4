extension Future where Failure == Never {
    /// The published value of the future, delivered asynchronously.
    ///
    /// Suspends until the promise is fulfilled (at once if it already was). A future that cannot fail has no way to
    /// report a cancellation, so cancelling the awaiting task does not end the wait: the value is still returned when
    /// the promise is fulfilled.
    ///
    /// ```swift
    /// let answer = Future<Int, Never> { promise in DispatchQueue.global().async { promise(.success(42)) } }
    /// let value = await answer.value   // 42
    /// ```
    ///
    /// **Demand:** `.max(1)`, once.
    /// **Thread safety:** may be awaited from any task, by any number of tasks at once; each subscribes on its own.
    public final var value: Output {
        get async {
            let subscriber = AsyncValueSubscriber<Output, Never>(window: 1)
            subscribe(subscriber)
            // A `Future<_, Never>` always produces a value (unless the subscription is cancelled, which only happens
            // through this subscriber, and nothing here cancels it).
            guard case .success(let value) = await subscriber.next() else {
                preconditionFailure("Future<_, Never> finished without a value")
            }
            subscriber.cancel()
            return value
        }
    }
}

extension Future {
    /// The published value of the future or an error, delivered asynchronously.
    ///
    /// Suspends until the promise is fulfilled. Throws the future's failure; throws `CancellationError` if the awaiting
    /// task is cancelled first (the subscription is then cancelled).
    ///
    /// ```swift
    /// let lookup = Future<Int, URLError> { promise in promise(.failure(URLError(.notConnectedToInternet))) }
    /// do { _ = try await lookup.value } catch { print(error) }   // the URLError
    /// ```
    ///
    /// **Demand:** `.max(1)`, once.
    /// **Thread safety:** may be awaited from any task, by any number of tasks at once; each subscribes on its own.
    public final var value: Output {
        get async throws {
            let owner = AsyncIteratorOwner(subscribingTo: self, window: 1)
            switch await owner.next() {
            case .success(let value): return value
            case .failure(let error): throw error
            case nil: throw CancellationError()
            }
        }
    }
}
