/// A publisher that immediately terminates with the specified error.
///
/// ```swift
/// struct Offline: Error {}
/// let cancellable = Fail<Int, Offline>(error: Offline())
///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })   // prints failure(Offline())
/// ```
///
/// **Demand:** ignores demand; the failure needs none.
/// **Thread safety:** may be subscribed to from any thread; the subscription and failure are delivered on the
/// subscribing thread, before `subscribe` returns.
public struct Fail<Output, Failure: Error>: Publisher {
    /// The failure to send.
    public let error: Failure

    /// Creates a publisher that fails with `error`.
    public init(error: Failure) {
        self.error = error
    }

    /// Creates a publisher that fails with `error`, naming the output type (for type inference).
    public init(outputType: Output.Type, failure: Failure) {
        self.error = failure
    }

    /// Attaches a subscriber: it receives a subscription, then the failure.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
    }
}

extension Fail: Equatable where Failure: Equatable {}
extension Fail: Sendable where Failure: Sendable {}
