/// A transparent subscriber wrapper that reports the demand its downstream returns from `receive(_:)`.
///
/// An ``Emitter`` adds the demand a subscriber returns from `receive(_:)` to its own count, but does not tell the
/// operator that owns it. Multi-input operators that forward the downstream's demand to their upstreams (zip,
/// combineLatest, ...) wrap their downstream in this type so that returned demand reaches the upstreams too.
///
/// ```swift
/// let emitter = Emitter(
///     downstream: DemandReportingSubscriber(downstream: subscriber) { more in forwardToUpstreams(more) },
///     policy: .unbounded)
/// ```
///
/// **Demand:** unchanged; `onReturnedDemand` is called with every non-zero demand returned by `receive(_:)`.
/// **Thread safety:** as the wrapped subscriber; `onReturnedDemand` runs on the delivering thread, right after
/// `receive(_:)` returns, with no library lock held (the emitter never calls out under its lock).
struct DemandReportingSubscriber<Downstream: Subscriber>: Subscriber, CustomStringConvertible {
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
