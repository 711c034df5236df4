/// A publisher that provides an explicit means of connecting and canceling publication.
///
/// A connectable publisher subscribes to its upstream only when `connect()` is called, so that several subscribers
/// can be attached first.
///
/// ```swift
/// let connection = connectable.connect()
/// connection.cancel()
/// ```
///
/// **Demand:** see the conforming type.
/// **Thread safety:** Untangle's connectable publishers allow `connect()` from any thread; connecting twice while
/// connected returns the existing connection.
public protocol ConnectablePublisher<Output, Failure>: Publisher {
    /// Connects to the publisher, allowing it to produce elements, and returns an instance with which to cancel
    /// publishing.
    func connect() -> Cancellable
}
