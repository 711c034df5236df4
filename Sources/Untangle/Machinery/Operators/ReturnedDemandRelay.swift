/// Something that must learn about demand a downstream returns from `receive(_:)` (see ``ReturnedDemandRelay``).
///
/// **Demand:** `downstreamReturned(_:)` is called with every non-zero demand the downstream returns.
/// **Thread safety:** called on the thread delivering to the downstream, with no library lock held.
package protocol ReturnedDemandListener: AnyObject {
    /// The downstream returned `demand` (never `.none`) from `receive(_:)`.
    func downstreamReturned(_ demand: Subscribers.Demand)
}

/// Wraps the downstream of an ``Emitter`` so that the operator owning the emitter also learns about the demand the
/// downstream returns from `receive(_:)`. The emitter adds that demand to its own count; operators that forward
/// demand to their own sources (flatMap's inners, buffer's upstream) must hear about it too, or they would stall a
/// subscriber that asks for more one value at a time.
///
/// **Demand:** returned demand is passed to the emitter unchanged and reported to the listener.
/// **Thread safety:** called by the emitter, one signal at a time, with no lock held. The listener is held
/// strongly: the cycle operator → emitter → relay → operator is broken when the emitter releases its downstream
/// (cancel or completion).
package struct ReturnedDemandRelay<Downstream: Subscriber>: Subscriber, CustomStringConvertible {
    package typealias Input = Downstream.Input
    package typealias Failure = Downstream.Failure

    let downstream: Downstream
    let listener: ReturnedDemandListener

    package init(downstream: Downstream, listener: ReturnedDemandListener) {
        self.downstream = downstream
        self.listener = listener
    }

    package var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

    package func receive(subscription: Subscription) {
        downstream.receive(subscription: subscription)
    }

    package func receive(_ input: Input) -> Subscribers.Demand {
        let more = downstream.receive(input)
        if more > .none {
            listener.downstreamReturned(more)
        }
        return more
    }

    package func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    package var description: String { String(describing: downstream) }
}
