extension Result {
    /// A publisher that publishes this result: the success value then `.finished`, or the failure.
    ///
    /// ```swift
    /// let parsed: Result<Int, ParseError> = .success(7)
    /// let cancellable = parsed.publisher.sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// ```
    public var publisher: Result<Success, Failure>.Publisher {
        Publisher(self)
    }

    /// A publisher that publishes an output to each subscriber exactly once then finishes, or fails immediately
    /// without producing any elements.
    ///
    /// **Demand:** a success is delivered on the first request and followed at once by `.finished`; a failure is
    /// delivered at subscription, without demand.
    /// **Thread safety:** as ``Just``.
    public struct Publisher: Untangle.Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Success

        /// The result to deliver to each subscriber.
        public let result: Result<Success, Failure>

        /// Creates a publisher that delivers the specified result.
        public init(_ result: Result<Output, Failure>) {
            self.result = result
        }

        /// Creates a publisher that sends the specified output.
        public init(_ output: Output) {
            self.result = .success(output)
        }

        /// Creates a publisher that immediately terminates with the specified failure.
        public init(_ failure: Failure) {
            self.result = .failure(failure)
        }

        /// Attaches a subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Success, S.Failure == Failure {
            switch result {
            case .success(let value):
                SynchronousSourceSubscription.subscribe(
                    subscriber, to: SingleValueSource<Success, Failure, ResultName>(value: value), completion: .finished
                )
            case .failure(let error):
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .failure(error))
            }
        }
    }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}
extension Result.Publisher: Sendable where Success: Sendable, Failure: Sendable {}

/// `Result.Publisher`'s subscription name ("Once", as in Combine).
@usableFromInline
enum ResultName: SingleValueSourceName {
    @usableFromInline static var name: String { "Once" }
}
