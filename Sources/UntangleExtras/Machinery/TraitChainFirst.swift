import Untangle

// Performance: a struct subscriber, as ``TraitChainForward``, instead of a `sink` whose two closures captured the
// chain's parts (a `Sink`, two closure contexts, an `AnyCancellable` and the `forward` closure's context).
/// The subscriber a trait's `TraitSupport.chain` gives its first publisher: the first value makes `next` pick the
/// publisher to continue with, subscribed with a ``TraitChainForward`` (its subscription in the `inner` slot); a
/// finish without a value asks `onEmpty` (nil: finish); a failure is forwarded. Its own subscription is kept in the
/// `outer` slot.
///
/// ```swift
/// first.subscribe(TraitChainFirst(subscriber: subscriber, slots: slots, next: next, onEmpty: onEmpty))
/// ```
///
/// **Demand:** asks for `.unlimited`.
/// **Thread safety:** as its publisher's signals, which the contract serializes (`sawValue` relies on it); the
/// slots may be cancelled from any thread.
@usableFromInline
struct TraitChainFirst<Input, Output, Failure: Error>: Subscriber {
    @usableFromInline let subscriber: Publishers.Create<Output, Failure>.Subscriber
    @usableFromInline let slots: TraitChainSlots
    @usableFromInline let next: ((Input) -> AnyPublisher<Output, Failure>)?
    @usableFromInline let onEmpty: () -> AnyPublisher<Output, Failure>?
    /// Touched only from this subscriber's serialized signals: no lock.
    @usableFromInline let sawValue = OperatorVariable(false)
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(
        subscriber: Publishers.Create<Output, Failure>.Subscriber, slots: TraitChainSlots,
        next: ((Input) -> AnyPublisher<Output, Failure>)?, onEmpty: @escaping () -> AnyPublisher<Output, Failure>?
    ) {
        self.subscriber = subscriber
        self.slots = slots
        self.next = next
        self.onEmpty = onEmpty
    }

    @inlinable
    func receive(subscription: Subscription) {
        slots.adopt(subscription, as: .outer)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        let isFirst = !sawValue.value
        sawValue.value = true
        if isFirst, let next {
            forward(next(input))
        }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .failure(let error):
            subscriber.send(completion: .failure(error))
        case .finished:
            guard !sawValue.value else { return }
            if let publisher = onEmpty() {
                forward(publisher)
            } else {
                subscriber.send(completion: .finished)
            }
        }
    }

    /// Continues with `publisher`.
    @inlinable
    func forward(_ publisher: AnyPublisher<Output, Failure>) {
        publisher.subscribe(TraitChainForward(subscriber: subscriber, slots: slots))
    }
}
