extension Subscribers {
    /// A signal that a publisher doesn't produce additional elements, either due to normal completion or an error.
    ///
    /// ```swift
    /// publisher.sink(receiveCompletion: { completion in
    ///     if case .failure(let error) = completion { print("failed:", error) }
    /// }, receiveValue: { _ in })
    /// ```
    ///
    /// **Demand:** a completion needs no demand: a publisher may send it at any time, once, as its last signal.
    /// **Thread safety:** a value type; safe to pass between threads when `Failure` is.
    @frozen
    public enum Completion<Failure: Error> {
        /// The publisher finished normally.
        case finished
        /// The publisher stopped publishing due to the indicated error.
        case failure(Failure)
    }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Hashable where Failure: Hashable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

private enum CompletionCodingKeys: String, CodingKey {
    case success
    case error
}

extension Subscribers.Completion: Encodable where Failure: Encodable {
    /// Encodes `.finished` as `{"success": true}` and `.failure(e)` as `{"success": false, "error": e}`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CompletionCodingKeys.self)
        switch self {
        case .finished:
            try container.encode(true, forKey: .success)
        case .failure(let error):
            try container.encode(false, forKey: .success)
            try container.encode(error, forKey: .error)
        }
    }
}

extension Subscribers.Completion: Decodable where Failure: Decodable {
    /// Decodes the form written by `encode(to:)`.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CompletionCodingKeys.self)
        if try container.decode(Bool.self, forKey: .success) {
            self = .finished
        } else {
            self = .failure(try container.decode(Failure.self, forKey: .error))
        }
    }
}

extension Subscribers.Completion {
    /// The same completion with the failure transformed; `.finished` stays `.finished`.
    @inlinable
    package func mapFailure<NewFailure: Error>(_ transform: (Failure) -> NewFailure)
        -> Subscribers.Completion<
            NewFailure
        >
    {
        switch self {
        case .finished: return .finished
        case .failure(let error): return .failure(transform(error))
        }
    }
}

extension Subscribers.Completion where Failure == Never {
    /// A `Never`-failing completion seen as one of any failure type (it can only be `.finished`).
    @inlinable
    package func promoted<NewFailure: Error>(to _: NewFailure.Type = NewFailure.self)
        -> Subscribers.Completion<
            NewFailure
        >
    {
        .finished
    }
}
