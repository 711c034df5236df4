/// A protocol that declares a type that can receive input from a publisher.
///
/// A publisher calls the methods in order: `receive(subscription:)` once, then `receive(_:)` at most as many times
/// as the subscriber has demanded, then at most one `receive(completion:)`.
///
/// ```swift
/// final class Printer: Subscriber {
///     typealias Input = Int
///     typealias Failure = Never
///     func receive(subscription: Subscription) { subscription.request(.unlimited) }
///     func receive(_ input: Int) -> Subscribers.Demand { print(input); return .none }
///     func receive(completion: Subscribers.Completion<Never>) { print("done") }
/// }
/// ```
///
/// **Demand:** the subscriber asks for values through its subscription and by returning extra demand from
/// `receive(_:)`; returning `.none` means "no more than I asked for before".
/// **Thread safety:** Untangle's publishers never call a subscriber's three methods concurrently: calls may arrive on
/// different threads, but one at a time (see ThreadSafety.md). A subscriber can rely on that and keep unsynchronized
/// state touched only from these methods.
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    /// The kind of values this subscriber receives.
    associatedtype Input
    /// The kind of errors this subscriber might receive.
    associatedtype Failure: Error

    /// Tells the subscriber that it has successfully subscribed to the publisher and may request items.
    func receive(subscription: Subscription)

    /// Tells the subscriber that the publisher has produced an element; returns additional demand.
    func receive(_ input: Input) -> Subscribers.Demand

    /// Tells the subscriber that the publisher has completed publishing, either normally or with an error.
    func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
    /// Tells the subscriber that a publisher of void elements is ready to receive further requests.
    public func receive() -> Subscribers.Demand {
        receive(())
    }
}
