// Performance: `@usableFromInline` with `@inlinable` members (and the publishers' `receive(subscriber:)`
// `@inlinable`), so the client module specializes the whole fan-in, its inner subscribers and the upstream subjects'
// conduits for the concrete downstream and machine. Unspecialized, every value ran generic code with a runtime
// metadata lookup per generic type touched (about 16,000 instructions per value through a merge of 8 subjects).
/// The whole subscription of a fan-in whose sources, all of the downstream's type, are given up front (merge, amb):
/// a ``FanIn`` whose inners are the sources, numbered in order, and whose machine decides everything else.
///
/// Requests go where the machine's ``FanInStateMachine/request(_:)`` says; a source's value is delivered at once
/// (or, when the machine ``FanInStateMachine/decidesValues``, as ``FanInStateMachine/innerValue(_:)`` says); a
/// source's completion is what ``FanInStateMachine/innerCompleted(_:_:)`` decides; the downstream's cancel is
/// ``FanInStateMachine/cancelled()``.
///
/// ```swift
/// FanInSubscription.subscribe(subscriber, machine: MergeStateMachine(upstreamCount: 2), sourceCount: 2) { inner in
///     a.subscribe(inner(0))
///     b.subscribe(inner(1))
/// }
/// ```
///
/// **Demand:** as the machine says.
/// **Thread safety:** sources may deliver concurrently from any threads; `request` and `cancel` may be called from
/// any thread. No lock is held while calling a source or the downstream, so sources that are themselves wired to
/// the fan-in's output cannot deadlock it.
@usableFromInline
package final class FanInSubscription<Machine: FanInStateMachine, Downstream: Subscriber>: FanInOwner, FanInParent,
    CustomStringConvertible, @unchecked Sendable
{
    @usableFromInline package typealias InnerInput = Downstream.Input
    @usableFromInline package typealias InnerFailure = Downstream.Failure

    @usableFromInline package let fanIn: FanIn<Downstream, Machine>

    @inlinable
    init(downstream: Downstream, machine: Machine) {
        fanIn = FanIn(downstream: downstream, machine: machine, demand: .forwarded)
    }

    /// Subscribes `downstream` to the fan-in of the sources `subscribeSources` subscribes: the downstream receives
    /// its subscription first, then `subscribeSources` is called with a factory of inner subscribers; it subscribes
    /// source `i` with `inner(i)`, for each `i < sourceCount`. With no sources the downstream finishes at once.
    @inlinable
    package static func subscribe(
        _ downstream: Downstream, machine: Machine, sourceCount: Int,
        _ subscribeSources: (_ inner: (Int) -> FanInInner<FanInSubscription>) -> Void
    ) {
        guard let subscription = started(downstream, machine: machine, sourceCount: sourceCount) else {
            return
        }
        subscribeSources { FanInInner(parent: subscription, id: $0) }
    }

    /// Subscribes `downstream` to the fan-in of `sources`, numbered in order as the machine's upstreams
    /// (``FanInStateMachine/upstreams``): the downstream receives its subscription first, then the sources are
    /// subscribed in order, except one the machine has already ended (asked under the lock before each one: a source
    /// that decided a race, or the operator's end, spares the later ones a subscription that would only be
    /// cancelled). With no sources the downstream finishes at once.
    @inlinable
    package static func subscribe<Source: Publisher>(
        _ downstream: Downstream, machine: Machine, sources: [Source]
    ) where Source.Output == Downstream.Input, Source.Failure == Downstream.Failure {
        guard let subscription = started(downstream, machine: machine, sourceCount: sources.count) else {
            return
        }
        for (id, source) in sources.enumerated() {
            guard !subscription.fanIn.withCriticalSection({ $0.upstreams.isEnded(at: id) }) else { continue }
            subscription.fanIn.subscribe(source, FanInInner(parent: subscription, id: id))
        }
    }

    /// The subscription, after handing it to the downstream; nil (the downstream finished) with no sources.
    @inlinable
    static func started(
        _ downstream: Downstream, machine: Machine, sourceCount: Int
    ) -> FanInSubscription? {
        let subscription = FanInSubscription(downstream: downstream, machine: machine)
        subscription.fanIn.start(subscription)
        guard sourceCount > 0 else {
            subscription.fanIn.perform(FanInEffects(completion: .finished))
            return nil
        }
        return subscription
    }

    @inlinable
    package func inner(_ id: Int, subscribed subscription: Subscription) {
        fanIn.inner(id, subscribed: subscription)
    }

    @inlinable
    package func inner(_ id: Int, received input: Downstream.Input) -> Subscribers.Demand {
        // `decidesValues` is a constant once specialized: merge's values go to the emitter without the lock. Demand
        // was forwarded up front; the emitter queues what the downstream cannot take yet.
        if Machine.decidesValues {
            return fanIn.offer(input, from: id)
        }
        fanIn.emitter.offer(input)
        return .none
    }

    @inlinable
    package func inner(_ id: Int, completed completion: Subscribers.Completion<Downstream.Failure>) {
        fanIn.complete(id, completion)
    }

    @usableFromInline
    package var description: String { Machine.name }
}
