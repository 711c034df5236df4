import Untangle

/// The downstream of a group's `Emitter`: forwards to the subscriber in the group's ``GroupSlot``.
///
/// ```swift
/// let emitter = Emitter(downstream: GroupTarget(slot: slot), policy: .unbounded)
/// ```
///
/// **Demand:** returns the subscriber's demand unchanged.
/// **Thread safety:** the emitter serializes the calls; the slot is read under its lock, the subscriber is called
/// outside it.
struct GroupTarget<Output, Failure: Error>: Subscriber, CustomStringConvertible {
    typealias Input = Output

    let slot: GroupSlot<Output, Failure>
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: Subscription) {
        slot.subscriber?.receive(subscription: subscription)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
        slot.subscriber?.receive(input) ?? .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let subscriber = slot.empty()
        subscriber?.receive(completion: completion)
    }

    var description: String { "GroupBy.Group" }
}
