import Untangle

extension Future where Failure == Never {
    /// Creates a future that runs an async operation at once, in a task, and publishes its result.
    ///
    /// Like every `Future`, it starts immediately (not on subscription) and shares its one result with every
    /// subscriber. Cancelling a subscription does not cancel the operation (other subscribers may still want it); use
    /// ``AsyncFuture`` for a per-subscriber operation whose task is cancelled with the subscription.
    ///
    /// ```swift
    /// let thumbnail = Future { await renderer.render(size: 64) }   // Future<Image, Never>
    /// let cancellable = thumbnail.sink { print($0) }
    /// ```
    ///
    /// **Demand:** as `Future`: the value waits for the first request.
    /// **Thread safety:** as `Future`; the operation runs in a task of its own.
    ///
    /// - Parameter operation: The async operation; it runs once.
    public convenience init(_ operation: @escaping @Sendable () async -> Output) {
        self.init { promise in
            let promise = SendablePromise(fulfil: promise)
            Task { promise.fulfil(.success(await operation())) }
        }
    }
}

extension Future where Failure == any Error {
    /// Creates a future that runs a throwing async operation at once, in a task, and publishes its result or error.
    ///
    /// Like every `Future`, it starts immediately and shares its one result; cancelling a subscription does not cancel
    /// the operation (see ``AsyncFuture`` for that).
    ///
    /// ```swift
    /// let user = Future { try await api.currentUser() }   // Future<User, any Error>
    /// let cancellable = user.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** as `Future`: the value waits for the first request; a failure is delivered at once.
    /// **Thread safety:** as `Future`; the operation runs in a task of its own.
    ///
    /// - Parameter operation: The async operation; it runs once.
    public convenience init(_ operation: @escaping @Sendable () async throws -> Output) {
        self.init { promise in
            let promise = SendablePromise(fulfil: promise)
            Task {
                do {
                    promise.fulfil(.success(try await operation()))
                } catch {
                    promise.fulfil(.failure(error))
                }
            }
        }
    }
}

// A Future's promise may be called from any thread (Future documents it); the function type is just not annotated
// `Sendable`, so it crosses into the task in this unchecked wrapper.
private struct SendablePromise<Output, Failure: Error>: @unchecked Sendable {
    let fulfil: (Result<Output, Failure>) -> Void
}
