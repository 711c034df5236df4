import UntangleSync

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
/// **Demand:** unchanged: the subscriber is attached to the wrapped publisher, whose subscription it receives.
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
        // Performance: the wrapped publisher is subscribed through code specialized for its type, formed where the
        // eraser was made (see PublisherBox), so the subscriber must reach it as a type known there: a `Sink`
        // as itself (the subject's and the emitter's fast paths recognise it), anything else in an `AnySubscriber`
        // (same identity, description and mirror; an `AnySubscriber` is not wrapped again). Both checks fold at
        // compile time once specialized. With an `_Introspection` enabled (one atomic load per subscription), the
        // subscriber reaches the wrapped publisher as it came, through the generic path, as in Combine: a tap the
        // wrapped publisher recognises (`subscribe`'s), not an `AnySubscriber` it would tap a second time.
        if IntrospectionHooks.isActive {
            box.receive(subscriber: subscriber)
        } else if DownstreamReference<S>.isSink {
            box.receiveSink(box, _unsafeReferenceCast(subscriber, to: Subscribers.Sink<Output, Failure>.self))
        } else {
            box.receiveErased(box, AnySubscriber(subscriber))
        }
    }
}

// Why closures and not an overridden generic method: a generic class's overrides run unspecialized (the vtable
// holds the generic implementation), so the whole chain subscribed through it, and every value it later delivers,
// ran generic code with runtime metadata lookups (2,700 instructions per value through three erasers, against 240
// without them). The closures are formed in `PublisherBox`'s `@inlinable` initializer, i.e. specialized in the
// module that erases the publisher, and take the box as an argument so they capture nothing (no allocation).
@usableFromInline
class PublisherBoxBase<Output, Failure: Error>: @unchecked Sendable {
    /// Subscribes the wrapped publisher with a type-erased subscriber.
    @usableFromInline let receiveErased: (PublisherBoxBase, AnySubscriber<Output, Failure>) -> Void
    /// Subscribes the wrapped publisher with a sink, unwrapped.
    @usableFromInline let receiveSink: (PublisherBoxBase, Subscribers.Sink<Output, Failure>) -> Void

    @inlinable
    init(
        receiveErased: @escaping (PublisherBoxBase, AnySubscriber<Output, Failure>) -> Void,
        receiveSink: @escaping (PublisherBoxBase, Subscribers.Sink<Output, Failure>) -> Void
    ) {
        self.receiveErased = receiveErased
        self.receiveSink = receiveSink
    }

    /// Subscribes the wrapped publisher with `subscriber` as it is (unspecialized: only while introspecting).
    @usableFromInline
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
        // `receive`, not `subscribe`: as in Combine, an `_Introspection` sees the eraser receive the subscriber,
        // not the wrapped publisher as well (that one's own inner subscribes are observed as usual). The first
        // argument is always this box (AnyPublisher passes its own), so the downcast is safe.
        super.init(
            receiveErased: { box, subscriber in
                RawReference.downcast(box, to: PublisherBox<Base>.self).base.receive(subscriber: subscriber)
            },
            receiveSink: { box, sink in
                RawReference.downcast(box, to: PublisherBox<Base>.self).base.receive(subscriber: sink)
            })
    }

    @usableFromInline
    override func receive<S: Subscriber>(subscriber: S) where S.Input == Base.Output, S.Failure == Base.Failure {
        base.receive(subscriber: subscriber)
    }
}
