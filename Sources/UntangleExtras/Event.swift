import Untangle

/// One signal of a publisher as a value: what `materialize()` emits and `dematerialize()` consumes.
///
/// ```swift
/// let events = [1, 2].publisher.materialize()
/// // .value(1), .value(2), .completion(.finished), then the materialized stream finishes
/// ```
///
/// **Thread safety:** a value; `Sendable` when its payloads are.
public enum Event<Output, Failure: Error> {
    /// A value the publisher sent.
    case value(Output)
    /// The publisher's completion (`.finished` or `.failure`).
    case completion(Subscribers.Completion<Failure>)

    /// The value, if this is a value event.
    public var value: Output? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// The failure, if this is a failure event.
    public var failure: Failure? {
        if case .completion(.failure(let failure)) = self { return failure }
        return nil
    }

    /// Whether this is a completion (finished or failed).
    public var isCompletion: Bool {
        if case .completion = self { return true }
        return false
    }
}

extension Event: Equatable where Output: Equatable, Failure: Equatable {}
extension Event: Hashable where Output: Hashable, Failure: Hashable {}
extension Event: Sendable where Output: Sendable, Failure: Sendable {}

extension Event: CustomStringConvertible {
    /// `value(x)`, `finished` or `failure(error)`.
    public var description: String {
        switch self {
        case .value(let value): return "value(\(value))"
        case .completion(.finished): return "finished"
        case .completion(.failure(let error)): return "failure(\(error))"
        }
    }
}
