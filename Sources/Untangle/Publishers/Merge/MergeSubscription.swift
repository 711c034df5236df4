import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and `MergeMany.receive(subscriber:)` `@inlinable`), so
// the client module specializes the whole merge, the inner subscribers and the upstream subjects' conduits for the
// concrete downstream. Unspecialized, every value ran generic code with a runtime metadata lookup per generic type
// touched (about 16,000 instructions per value through a merge of 8 subjects).
/// The subscription shared by every merge publisher (`Merge` … `Merge8`, `MergeMany`): a ``FanIn`` whose inners are
/// the upstreams, subscribed once each; it forwards demand to all of them and funnels their values into one
/// ``Emitter`` so the downstream sees one signal at a time however many threads the upstreams deliver on.
///
/// **Demand:** see ``MergeStateMachine``.
/// **Thread safety:** upstreams may deliver concurrently from any threads; `request` and `cancel` may be called from
/// any thread. No lock is held while calling an upstream or the downstream, so upstreams that are themselves wired
/// to the merge's output cannot deadlock it.
@usableFromInline
final class MergeSubscription<Downstream: Subscriber>: Subscription, FanInParent, CustomStringConvertible,
    @unchecked Sendable
{
    @usableFromInline typealias InnerInput = Downstream.Input
    @usableFromInline typealias InnerFailure = Downstream.Failure

    @usableFromInline let fanIn: FanIn<Downstream, MergeStateMachine>

    @inlinable
    init(downstream: Downstream, upstreamCount: Int) {
        fanIn = FanIn(downstream: downstream, machine: MergeStateMachine(upstreamCount: upstreamCount))
    }

    /// Subscribes `downstream` to the merge of `subscribeUpstreams`' publishers. `subscribeUpstreams` is called with
    /// a factory of inner subscribers; it must subscribe upstream `i` with `inner(i)` for each `i < upstreamCount`.
    @inlinable
    static func subscribe(
        _ downstream: Downstream, upstreamCount: Int,
        _ subscribeUpstreams: (_ inner: (Int) -> FanInInner<MergeSubscription>) -> Void
    ) {
        let merge = MergeSubscription(downstream: downstream, upstreamCount: upstreamCount)
        merge.fanIn.emitter.start(subscription: merge)
        guard upstreamCount > 0 else {
            merge.fanIn.emitter.complete(.finished, order: .afterQueuedValues)
            return
        }
        subscribeUpstreams { FanInInner(parent: merge, id: $0) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        fanIn.request(demand)
    }

    @inlinable
    func cancel() {
        fanIn.cancel()
    }

    @inlinable
    func inner(_ index: Int, subscribed subscription: Subscription) {
        fanIn.inner(index, subscribed: subscription)
    }

    @inlinable
    func inner(_ index: Int, received input: Downstream.Input) -> Subscribers.Demand {
        // Demand was forwarded up front; the emitter queues anything the downstream cannot take yet.
        fanIn.emitter.offer(input)
        return .none
    }

    @inlinable
    func inner(_ index: Int, completed completion: Subscribers.Completion<Downstream.Failure>) {
        fanIn.complete(completion, finished: { ($0.finished(at: index), nil) }, failed: { $0.terminate() })
    }

    @usableFromInline
    var description: String { "Merge" }
}
