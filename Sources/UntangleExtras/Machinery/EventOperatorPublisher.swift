import Untangle

/// A publisher running an ``EventOperatorSubscription`` over an upstream, with a fresh handler (and so fresh
/// per-subscription state) for every subscriber. Used where the operator has no public type of its own (the
/// traits' conversions).
///
/// ```swift
/// let checked = EventOperatorPublisher(upstream: source, name: "AsSingle", demand: .unlimitedOnFirstRequest) {
///     var seen = false
///     return { event in ... }
/// }
/// ```
///
/// **Demand:** per the given ``EventUpstreamDemand``.
/// **Thread safety:** as ``EventOperatorSubscription``.
struct EventOperatorPublisher<Upstream: Publisher, Output, Failure: Error>: Publisher {
    typealias Handler = (Event<Upstream.Output, Upstream.Failure>) -> EventReaction<Output, Failure>

    let upstream: Upstream
    let name: String
    let demand: EventUpstreamDemand
    let makeHandler: () -> Handler

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        upstream.subscribe(
            EventOperatorSubscription(downstream: subscriber, name: name, demand: demand, handle: makeHandler()))
    }
}
