// `@usableFromInline`/`@inlinable` (like ReducerState): the merge's code is specialized in the client module for
// the concrete downstream, instead of running generic code with runtime type lookups per value.
/// The pure state machine of a merge: where each upstream stands (``UpstreamSlot``), how much the downstream has
/// requested in total, how many upstreams have finished. It never calls out.
///
/// **Demand:** every unit the downstream requests is requested from every upstream (an upstream that subscribes
/// late is asked for the total so far); values beyond the downstream's demand wait in the downstream's emitter, so
/// the buffer is bounded by what was requested.
/// **Thread safety:** none: always mutated under the merge's lock.
@usableFromInline
struct MergeStateMachine: FanInStateMachine {
    @usableFromInline var upstreams: [UpstreamSlot]
    @usableFromInline var requested = Subscribers.Demand.none
    @usableFromInline var finished: Int = 0
    @usableFromInline var isTerminated = false

    @inlinable
    init(upstreamCount: Int) {
        upstreams = Array(repeating: .awaiting, count: upstreamCount)
    }

    /// Upstream `index`'s subscription arrived: returns the demand to request from it (nil: cancel it instead,
    /// because the merge has ended or this upstream already had a subscription).
    @inlinable
    mutating func innerSubscribed(_ index: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, upstreams[index].accept(subscription) else { return nil }
        return requested
    }

    /// The downstream asked for more: returns the subscriptions to forward the request to.
    @inlinable
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        guard !isTerminated else { return [] }
        requested += demand
        return upstreams.compactMap(\.subscription)
    }

    /// An upstream finished: true if it was the last one (the merge finishes).
    @inlinable
    mutating func finished(at index: Int) -> Bool {
        guard !isTerminated, !upstreams[index].isEnded else { return false }
        upstreams[index].end()
        finished += 1
        if finished == upstreams.count {
            isTerminated = true
            return true
        }
        return false
    }

    /// An upstream failed or the downstream cancelled: ends the merge and returns the subscriptions to cancel
    /// (nil if it had already ended).
    @inlinable
    mutating func terminate() -> [Subscription]? {
        guard !isTerminated else { return nil }
        isTerminated = true
        defer { upstreams = upstreams.map { _ in .ended } }
        return upstreams.compactMap(\.subscription)
    }
}
