import Untangle

/// A transparent subscriber wrapper that reports the demand its downstream returns from `receive(_:)`, for the
/// operators of this module that deliver through the core's `Emitter` (which keeps returned demand for its own
/// accounting). It plays the role of the core's internal `DemandRelay`, which is not visible from this module.
///
/// ```swift
/// let forwarding = ForwardingDemandSubscriber(downstream: subscriber) { more in upstream.request(more) }
/// let emitter = Emitter(downstream: forwarding, policy: .unbounded)
/// ```
///
/// **Demand:** returns the downstream's demand unchanged, after calling `onReturnedDemand` with it when it is not
/// `.none`.
/// **Thread safety:** as the wrapped subscriber: the emitter serializes the calls; `onReturnedDemand` runs on the
/// delivering thread, outside every library lock.
struct ForwardingDemandSubscriber<Downstream: Subscriber>: Subscriber, CustomStringConvertible {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let onReturnedDemand: (Subscribers.Demand) -> Void

    var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

    func receive(subscription: Subscription) {
        downstream.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let more = downstream.receive(input)
        if more > .none {
            onReturnedDemand(more)
        }
        return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    var description: String { String(describing: downstream) }
}
