/// A publisher that never publishes any values, and optionally finishes immediately.
///
/// ```swift
/// let nothing = Empty<Int, Never>()                               // finishes at once
/// let never = Empty<Int, Never>(completeImmediately: false)       // never sends anything
/// ```
///
/// **Demand:** ignores demand; it has no values.
/// **Thread safety:** may be subscribed to from any thread; the subscription and completion are delivered on the
/// subscribing thread, before `subscribe` returns.
public struct Empty<Output, Failure: Error>: Publisher, Equatable {
    /// Whether the publisher immediately sends a completion.
    public let completeImmediately: Bool

    /// Creates an empty publisher.
    ///
    /// - Parameter completeImmediately: Whether to finish at once (`true`) or never (`false`).
    public init(completeImmediately: Bool = true) {
        self.completeImmediately = completeImmediately
    }

    /// Creates an empty publisher with the given types (for type inference at the call site).
    public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {
        self.completeImmediately = completeImmediately
    }

    /// Attaches a subscriber: it receives a subscription and, if `completeImmediately`, `.finished`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        if completeImmediately {
            subscriber.receive(completion: .finished)
        }
    }

    /// Two empty publishers are equal if they complete the same way.
    public static func == (lhs: Empty, rhs: Empty) -> Bool {
        lhs.completeImmediately == rhs.completeImmediately
    }
}

extension Empty: Sendable {}
