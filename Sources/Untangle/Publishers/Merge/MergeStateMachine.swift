// `@usableFromInline`/`@inlinable` (like ReducerState): the merge's code is specialized in the client module for
// the concrete downstream, instead of running generic code with runtime type lookups per value.
/// The pure state machine of a merge: which upstream subscriptions have arrived, how much the downstream has
/// requested in total, how many upstreams have finished. It never calls out.
///
/// **Demand:** every unit the downstream requests is requested from every upstream (an upstream that subscribes
/// late is asked for the total so far); values beyond the downstream's demand wait in the downstream's emitter, so
/// the buffer is bounded by what was requested.
/// **Thread safety:** none: always mutated under the merge's lock.
@usableFromInline
struct MergeStateMachine {
    @usableFromInline var subscriptions: [Subscription?]
    @usableFromInline var requested = Subscribers.Demand.none
    @usableFromInline var finished: Int = 0
    @usableFromInline var isTerminated = false

    @inlinable
    init(upstreamCount: Int) {
        subscriptions = Array(repeating: nil, count: upstreamCount)
    }

    /// An upstream's subscription arrived: returns the demand to request from it (nil: cancel it instead, because
    /// the merge has ended or this upstream already had a subscription).
    @inlinable
    mutating func subscribed(_ subscription: Subscription, at index: Int) -> Subscribers.Demand? {
        guard !isTerminated, subscriptions[index] == nil else { return nil }
        subscriptions[index] = subscription
        return requested
    }

    /// The downstream asked for more: returns the subscriptions to forward the request to.
    @inlinable
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        guard !isTerminated else { return [] }
        requested += demand
        return subscriptions.compactMap { $0 }
    }

    /// An upstream finished: true if it was the last one (the merge finishes).
    @inlinable
    mutating func finished(at index: Int) -> Bool {
        guard !isTerminated else { return false }
        subscriptions[index] = nil
        finished += 1
        if finished == subscriptions.count {
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
        defer { subscriptions = subscriptions.map { _ in nil } }
        return subscriptions.compactMap { $0 }
    }
}
