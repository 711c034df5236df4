extension Publisher {
    /// Wraps this publisher with a type eraser.
    ///
    /// ```swift
    /// var results: AnyPublisher<[String], Never> {
    ///     subject.map { [$0] }.eraseToAnyPublisher()
    /// }
    /// ```
    ///
    /// **Demand:** unchanged: requests pass straight to the wrapped publisher's subscription.
    /// **Thread safety:** that of the wrapped publisher.
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}

/// A publisher that performs type erasure by wrapping another publisher.
///
/// ```swift
/// let numbers: AnyPublisher<Int, Never> = [1, 2, 3].publisher.eraseToAnyPublisher()
/// ```
///
/// **Demand:** unchanged: subscribing attaches the subscriber directly to the wrapped publisher.
/// **Thread safety:** that of the wrapped publisher; the eraser itself is an immutable value.
@frozen
public struct AnyPublisher<Output, Failure: Error>: CustomStringConvertible, CustomPlaygroundDisplayConvertible {
    @usableFromInline
    let box: PublisherBoxBase<Output, Failure>

    /// Creates a type-erasing publisher to wrap the provided publisher (an `AnyPublisher` is not wrapped twice).
    @inlinable
    public init<P: Publisher>(_ publisher: P) where Output == P.Output, Failure == P.Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            self = erased
        } else {
            box = PublisherBox(publisher)
        }
    }

    /// "AnyPublisher".
    public var description: String { "AnyPublisher" }
    /// The description.
    public var playgroundDescription: Any { description }
}

extension AnyPublisher: Publisher {
    /// Attaches the subscriber to the wrapped publisher.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        box.receive(subscriber: subscriber)
    }
}

@usableFromInline
class PublisherBoxBase<Output, Failure: Error>: @unchecked Sendable {
    @inlinable
    init() {}

    @inlinable
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        preconditionFailure("PublisherBoxBase.receive is abstract")
    }
}

@usableFromInline
final class PublisherBox<Base: Publisher>: PublisherBoxBase<Base.Output, Base.Failure>, @unchecked Sendable {
    @usableFromInline let base: Base

    @inlinable
    init(_ base: Base) {
        self.base = base
    }

    @inlinable
    override func receive<S: Subscriber>(subscriber: S) where S.Input == Base.Output, S.Failure == Base.Failure {
        // `receive`, not `subscribe`: as in Combine, an `_Introspection` sees the eraser receive the subscriber,
        // not the wrapped publisher as well (that one's own inner subscribes are observed as usual).
        base.receive(subscriber: subscriber)
    }
}
