/// A transparent subscriber wrapper that reports the demand its downstream returns from `receive(_:)`.
///
/// Operators that deliver through an ``Emitter`` cannot see that returned demand (the emitter keeps it for its own
/// accounting). Wrapping the downstream in a relay lets the operator also pass it upstream, or add it to its own
/// count, on the delivering thread, with no library lock held.
///
/// ```swift
/// let relay = DemandRelay(downstream: subscriber) { more in upstreamSubscription.request(more) }
/// let emitter = Emitter(downstream: relay, policy: .unbounded)
/// ```
///
/// **Demand:** returns the downstream's demand unchanged, after calling `onReturnedDemand` with it when it is not
/// `.none`.
/// **Thread safety:** as the wrapped subscriber: the emitter serializes the calls; `onReturnedDemand` runs on the
/// delivering thread, outside every library lock.
@usableFromInline
package struct DemandRelay<Downstream: Subscriber>: TransparentSubscriber, CustomStringConvertible {
    @usableFromInline package typealias Input = Downstream.Input
    @usableFromInline package typealias Failure = Downstream.Failure

    @usableFromInline package let downstream: Downstream
    @usableFromInline let onReturnedDemand: (Subscribers.Demand) -> Void

    @inlinable
    package init(downstream: Downstream, onReturnedDemand: @escaping (Subscribers.Demand) -> Void) {
        self.downstream = downstream
        self.onReturnedDemand = onReturnedDemand
    }

    @inlinable
    package func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        let more = downstream.receive(input)
        if more > .none {
            onReturnedDemand(more)
        }
        return more
    }

    @usableFromInline
    package var description: String { String(describing: downstream) }
}
