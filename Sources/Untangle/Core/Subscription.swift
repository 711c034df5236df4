/// A protocol representing the connection of a subscriber to a publisher.
///
/// A subscription is what a publisher hands its subscriber in `receive(subscription:)`; the subscriber uses it to ask
/// for values and to stop.
///
/// ```swift
/// func receive(subscription: Subscription) {
///     subscription.request(.max(1))
/// }
/// ```
///
/// **Demand:** `request(_:)` adds to the outstanding demand; demands accumulate. Requesting `.none` is a contract
/// violation that stops the program with a message in Untangle's own subscriptions (as in Apple's Combine).
/// **Thread safety:** in Untangle, `request(_:)` and `cancel()` may be called from any thread, concurrently, and from
/// inside the subscriber's own `receive` methods (a reentrant request only adds demand; see ThreadSafety.md).
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Tells a publisher that it may send more values to the subscriber.
    func request(_ demand: Subscribers.Demand)
}

/// A namespace for symbols related to subscriptions.
///
/// ```swift
/// subscriber.receive(subscription: Subscriptions.empty)
/// subscriber.receive(completion: .finished)
/// ```
///
/// **Demand:** ``empty`` ignores every request.
/// **Thread safety:** ``empty`` is stateless and may be used from any thread.
public enum Subscriptions {
    /// A subscription that does nothing: requests and cancellation are ignored.
    ///
    /// Use it to satisfy the rule that a subscriber gets a subscription before a completion, when there is nothing
    /// to subscribe to (an empty or failed publisher).
    public static var empty: Subscription { EmptySubscription.shared }
}

// Describes itself as "Empty", with an empty mirror, as Combine's does.
private final class EmptySubscription: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, Sendable
{
    static let shared = EmptySubscription()
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
    var description: String { "Empty" }
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    var playgroundDescription: Any { description }
}
