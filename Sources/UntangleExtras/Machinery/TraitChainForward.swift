import Untangle

// Performance: a struct subscriber in the publisher's subscription, instead of a `sink` (a `Sink`, its two closure
// contexts and an `AnyCancellable`: four heap blocks per chained subscription); its subscription is what cancels it.
/// The subscriber a trait's `TraitSupport.chain` gives the publisher it continues with: it forwards every signal to
/// the chain's `Create` subscriber, and keeps its subscription in the chain's `inner` slot (which cancels it at once
/// if the chain ended already).
///
/// ```swift
/// publisher.subscribe(TraitChainForward(subscriber: subscriber, slots: slots))
/// ```
///
/// **Demand:** asks for `.unlimited` (the `Create` subscriber keeps values for its own subscriber's demand).
/// **Thread safety:** as its publisher's signals (serialized); the slots may be cancelled from any thread.
@usableFromInline
struct TraitChainForward<Input, Failure: Error>: Subscriber {
    @usableFromInline let subscriber: Publishers.Create<Input, Failure>.Subscriber
    @usableFromInline let slots: TraitChainSlots
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(subscriber: Publishers.Create<Input, Failure>.Subscriber, slots: TraitChainSlots) {
        self.subscriber = subscriber
        self.slots = slots
    }

    @inlinable
    func receive(subscription: Subscription) {
        slots.adopt(subscription, as: .inner)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        subscriber.send(input)
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        subscriber.send(completion: completion)
    }
}
