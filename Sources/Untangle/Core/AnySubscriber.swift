import UntangleSync

/// A type-erasing subscriber.
///
/// Use it to hide a subscriber's type, to forward to a subject, or to build a subscriber from closures.
///
/// ```swift
/// let printer = AnySubscriber<Int, Never>(
///     receiveSubscription: { $0.request(.unlimited) },
///     receiveValue: { print($0); return .none },
///     receiveCompletion: { print($0) })
/// [1, 2].publisher.subscribe(printer)
/// ```
///
/// **Demand:** unchanged: the wrapped subscriber's (closure-based: whatever `receiveValue` returns; the default
/// closures request nothing). Wrapping a subject requests `.unlimited` through the subject.
/// **Thread safety:** that of the wrapped subscriber or closures; the eraser adds no state.
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline let box: SubscriberBoxBase<Input, Failure>
    @usableFromInline let descriptionThunk: () -> String

    /// The identity of the wrapped subscriber (or of this eraser, for closure-based ones).
    public let combineIdentifier: CombineIdentifier

    /// Creates a type-erasing subscriber to wrap an existing subscriber (an `AnySubscriber` is not wrapped twice).
    @inlinable
    public init<S: Subscriber>(_ s: S) where Input == S.Input, Failure == S.Failure {
        if let erased = s as? AnySubscriber<Input, Failure> {
            self = erased
            return
        }
        box = SubscriberBox(s)
        combineIdentifier = s.combineIdentifier
        descriptionThunk = {
            (s as? CustomStringConvertible)?.description ?? String(describing: S.self)
        }
    }

    /// Creates a type-erasing subscriber that forwards everything to a subject, as `subscribe(_:)` does with a
    /// subject: it is described as "Subject", holds the subject weakly, and ignores signals before its first
    /// subscription and after the completion.
    public init<S: Subject>(_ s: S) where Input == S.Output, Failure == S.Failure {
        self.init(SubjectSubscriber(subject: s))
    }

    /// Creates a type-erasing subscriber that executes the provided closures (missing ones do nothing and request
    /// nothing).
    public init(
        receiveSubscription: ((Subscription) -> Void)? = nil,
        receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        box = ClosureSubscriberBox(
            receiveSubscription: receiveSubscription ?? { _ in },
            receiveValue: receiveValue ?? { _ in .none },
            receiveCompletion: receiveCompletion ?? { _ in })
        combineIdentifier = CombineIdentifier()
        descriptionThunk = { "Anonymous AnySubscriber" }
    }

    /// Forwards the subscription.
    @inlinable
    public func receive(subscription: Subscription) {
        box.receiveSubscription(box, subscription)
    }

    /// Forwards the value and returns the wrapped subscriber's demand.
    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
        box.receiveValue(box, value)
    }

    /// Forwards the completion.
    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
        box.receiveCompletion(box, completion)
    }

    /// The wrapped subscriber's description.
    public var description: String { descriptionThunk() }
    /// The wrapped subscriber's mirror (for a closure-based one, the mirror of its description), as in Combine.
    public var customMirror: Mirror { box.customMirror }
    /// The description.
    public var playgroundDescription: Any { description }
}

// Why closures and not overridden methods: a generic class's overrides run unspecialized (the vtable holds the
// generic implementation), so each value through an `AnySubscriber` ran the wrapped subscriber's code generically,
// with runtime metadata lookups. The closures are formed in the boxes' `@inlinable` initializers, i.e. specialized
// where the subscriber is erased, and take the box as an argument so they capture nothing (no allocation).
@usableFromInline
class SubscriberBoxBase<Input, Failure: Error>: @unchecked Sendable {
    @usableFromInline let receiveSubscription: (SubscriberBoxBase, Subscription) -> Void
    @usableFromInline let receiveValue: (SubscriberBoxBase, Input) -> Subscribers.Demand
    @usableFromInline let receiveCompletion: (SubscriberBoxBase, Subscribers.Completion<Failure>) -> Void

    @inlinable
    init(
        receiveSubscription: @escaping (SubscriberBoxBase, Subscription) -> Void,
        receiveValue: @escaping (SubscriberBoxBase, Input) -> Subscribers.Demand,
        receiveCompletion: @escaping (SubscriberBoxBase, Subscribers.Completion<Failure>) -> Void
    ) {
        self.receiveSubscription = receiveSubscription
        self.receiveValue = receiveValue
        self.receiveCompletion = receiveCompletion
    }

    /// The erased subscriber's mirror.
    var customMirror: Mirror { preconditionFailure("abstract") }
}

@usableFromInline
final class SubscriberBox<Base: Subscriber>: SubscriberBoxBase<Base.Input, Base.Failure>, @unchecked Sendable {
    @usableFromInline let base: Base

    // The first argument of each closure is always this box (AnySubscriber passes its own), so the downcast is safe.
    @inlinable
    init(_ base: Base) {
        self.base = base
        super.init(
            receiveSubscription: { box, subscription in
                RawReference.downcast(box, to: SubscriberBox<Base>.self).base.receive(subscription: subscription)
            },
            receiveValue: { box, value in
                RawReference.downcast(box, to: SubscriberBox<Base>.self).base.receive(value)
            },
            receiveCompletion: { box, completion in
                RawReference.downcast(box, to: SubscriberBox<Base>.self).base.receive(completion: completion)
            })
    }

    override var customMirror: Mirror {
        (base as? CustomReflectable)?.customMirror ?? Mirror(base, children: [:])
    }
}

@usableFromInline
final class ClosureSubscriberBox<Input, Failure: Error>: SubscriberBoxBase<Input, Failure>, @unchecked Sendable {
    @usableFromInline let onSubscription: (Subscription) -> Void
    @usableFromInline let onValue: (Input) -> Subscribers.Demand
    @usableFromInline let onCompletion: (Subscribers.Completion<Failure>) -> Void

    @inlinable
    init(
        receiveSubscription: @escaping (Subscription) -> Void,
        receiveValue: @escaping (Input) -> Subscribers.Demand,
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
    ) {
        onSubscription = receiveSubscription
        onValue = receiveValue
        onCompletion = receiveCompletion
        super.init(
            receiveSubscription: { box, subscription in
                RawReference.downcast(box, to: ClosureSubscriberBox.self).onSubscription(subscription)
            },
            receiveValue: { box, value in
                RawReference.downcast(box, to: ClosureSubscriberBox.self).onValue(value)
            },
            receiveCompletion: { box, completion in
                RawReference.downcast(box, to: ClosureSubscriberBox.self).onCompletion(completion)
            })
    }

    override var customMirror: Mirror { Mirror(reflecting: "Anonymous AnySubscriber") }
}
