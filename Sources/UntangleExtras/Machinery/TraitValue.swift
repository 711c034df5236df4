import Untangle

/// The publisher behind `Single(value)`: `Just(value)` with the trait's failure type, as
/// `Just(value).setFailureType(to:)` is, but reached specialized: its `receive(subscriber:)` is `@inlinable` and
/// subscribes `Just` (itself `@inlinable`) through an inlinable adapter, so the eraser that wraps it in the single
/// runs code specialized for it. (`Just.setFailureType(to:)` is a `Result.Publisher`, whose `receive` is not
/// inlinable: every `Single(value)` then ran the core's one-value subscription unspecialized, 27 runtime metadata
/// lookups each time one was subscribed.) The subscriber's subscription is `Just`'s, which describes itself as
/// "Just" (`Result.Publisher`'s says "Once"); demand and signals are the same.
///
/// ```swift
/// let single = Single<Int, MyError>(unchecked: TraitValue<Int, MyError>(42))
/// ```
///
/// **Demand:** as `Just`: the value on the first request, then `.finished`.
/// **Thread safety:** as `Just`.
@usableFromInline
struct TraitValue<Output, Failure: Error>: Publisher {
    @usableFromInline let value: Output

    @inlinable
    init(_ value: Output) {
        self.value = value
    }

    @inlinable
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        // `receive`, not `subscribe` (see Publishers.Map.receive(subscriber:) in Untangle).
        Just(value).receive(subscriber: Inner(downstream: subscriber))
    }

    /// `Just`'s subscriber: the trait's subscriber, to which a `Never`-failing completion is always `.finished`.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber
    where Downstream.Input == Output, Downstream.Failure == Failure {
        @usableFromInline typealias Input = Output
        @usableFromInline typealias Failure = Never

        @usableFromInline let downstream: Downstream

        @inlinable
        init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

        @inlinable
        func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        func receive(_ input: Output) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        func receive(completion: Subscribers.Completion<Never>) {
            downstream.receive(completion: .finished)
        }
    }
}
