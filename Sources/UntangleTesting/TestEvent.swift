import Untangle

/// One signal a subscriber received: the subscription, a value, or the completion.
///
/// Histories are arrays of `TestEvent`; they compare with `==` when the value and failure types are `Equatable`.
///
/// ```swift
/// XCTAssertEqual(subscriber.events, [.subscription, .value(1), .value(2), .completion(.finished)])
/// ```
///
/// **Thread safety:** a value type; safe to pass between threads when its payload is.
public enum TestEvent<Value, Failure: Error> {
    /// `receive(subscription:)`.
    case subscription
    /// `receive(_:)` with this value.
    case value(Value)
    /// `receive(completion:)` with this completion.
    case completion(Subscribers.Completion<Failure>)

    /// The value, if this event is one.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// The completion, if this event is one.
    public var completion: Subscribers.Completion<Failure>? {
        if case .completion(let completion) = self { return completion }
        return nil
    }
}

extension TestEvent: Equatable where Value: Equatable, Failure: Equatable {}

extension TestEvent: Sendable where Value: Sendable, Failure: Sendable {}

extension TestEvent: CustomStringConvertible {
    /// `subscription`, `value(1)`, `finished` or `failure(error)`.
    public var description: String {
        switch self {
        case .subscription: return "subscription"
        case .value(let value): return "value(\(value))"
        case .completion(.finished): return "finished"
        case .completion(.failure(let error)): return "failure(\(error))"
        }
    }
}
