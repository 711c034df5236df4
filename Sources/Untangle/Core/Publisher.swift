import UntangleSync

/// Declares that a type can transmit a sequence of values over time.
///
/// A publisher delivers elements to one or more ``Subscriber`` instances. Subscribe with `subscribe(_:)` (or an
/// operator that ends a chain, such as `sink`); publishers implement `receive(subscriber:)`.
///
/// ```swift
/// let cancellable = [1, 2, 3].publisher
///     .sink { print($0) }
/// ```
///
/// **Demand:** a publisher sends at most as many values as its subscriber has requested, and completion at any time.
/// **Thread safety:** every Untangle publisher may be subscribed to from any thread, concurrently; see
/// ThreadSafety.md for what each kind of publisher guarantees about the threads it delivers on.
public protocol Publisher<Output, Failure> {
    /// The kind of values published by this publisher.
    associatedtype Output
    /// The kind of errors this publisher might publish (`Never` if it can't fail).
    associatedtype Failure: Error

    /// Attaches the specified subscriber to this publisher.
    ///
    /// Implementations must call `subscriber.receive(subscription:)` exactly once. Call `subscribe(_:)` instead of
    /// this method: it is the entry point users are meant to call.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches the specified subscriber to this publisher.
    ///
    /// While an `_Introspection` is enabled, the subscription is observed by it.
    ///
    /// ```swift
    /// Just(1).subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { print($0) }))
    /// ```
    ///
    /// **Demand:** whatever the subscriber requests.
    /// **Thread safety:** as the publisher's `receive(subscriber:)`; checking for introspection is one atomic load.
    @inlinable
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        if IntrospectionHooks.count.load() != 0 {
            IntrospectionHooks.subscribe(subscriber, to: self)
            return
        }
        receive(subscriber: subscriber)
    }
}
