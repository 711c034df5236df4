// `@usableFromInline`/`@inlinable` (like ReducerState): the merge's code is specialized in the client module for
// the concrete downstream, instead of running generic code with runtime type lookups per value.
/// The pure state machine of a merge: running (with how many upstreams have not finished yet) or ended, and where
/// each upstream stands with the demand asked of them (``FanInUpstreams``). It never calls out.
///
/// **Demand:** every unit the downstream requests is requested from every upstream (an upstream that subscribes
/// late is asked for the total so far); values beyond the downstream's demand wait in the downstream's emitter, so
/// the buffer is bounded by what was requested.
/// **Thread safety:** none: always mutated under the merge's lock.
@usableFromInline
struct MergeStateMachine: FanInStateMachine {
    /// Where the merge is.
    @usableFromInline
    enum Phase {
        /// Delivering; `unfinished` upstreams have not finished yet.
        case running(unfinished: Int)
        /// Every upstream finished, one failed, or the downstream cancelled.
        case ended
    }

    @usableFromInline var phase: Phase
    @usableFromInline var upstreams: FanInUpstreams

    @inlinable
    init(upstreamCount: Int) {
        phase = .running(unfinished: upstreamCount)
        upstreams = FanInUpstreams(count: upstreamCount)
    }

    // A subscription's arrival and the downstream's requests are the skeleton's defaults (FanInStateMachine): the
    // upstreams admit the subscription and take the requests, and once the merge has ended every upstream has ended
    // too (the last finish, a failure or the cancel), so a late subscription is cancelled and a request goes nowhere.

    /// Upstream `index` completed: the last one to finish finishes the merge; a failure ends it, cancelling every
    /// upstream (as Apple's merge, the failed one's subscription too). Ignored once the merge has ended, and a
    /// second finish of one upstream is ignored.
    @inlinable
    mutating func innerCompleted<Failure>(
        _ index: Int, _ completion: Subscribers.Completion<Failure>
    ) -> FanInEffects<Failure> {
        guard case .running(let unfinished) = phase else { return FanInEffects() }
        guard case .finished = completion else { return FanInEffects(ending: end(), completion: completion) }
        if upstreams.isEnded(at: index) { return FanInEffects() }
        let released = upstreams.end(at: index)
        if unfinished == 1 {
            phase = .ended
            return FanInEffects(released: released, completion: .finished)
        }
        phase = .running(unfinished: unfinished - 1)
        return FanInEffects(released: released)
    }

    /// The downstream cancelled: ends the merge and returns the subscriptions to cancel (nil if it had already
    /// ended).
    @inlinable
    mutating func cancelled() -> FanInEnding? {
        guard case .running = phase else { return nil }
        return end()
    }

    @inlinable
    mutating func end() -> FanInEnding {
        phase = .ended
        return FanInEnding(cancel: upstreams.endAll())
    }
}

/// The subscription of every merge publisher (`Merge` … `Merge8`, `MergeMany`): a ``FanInSubscription`` whose
/// machine is a ``MergeStateMachine``.
@usableFromInline
typealias MergeSubscription<Downstream: Subscriber> = FanInSubscription<MergeStateMachine, Downstream>

extension FanInSubscription where Machine == MergeStateMachine {
    /// Subscribes `downstream` to the merge of `subscribeUpstreams`' publishers: it must subscribe upstream `i` with
    /// `inner(i)` for each `i < upstreamCount`.
    @inlinable
    static func subscribe(
        _ downstream: Downstream, upstreamCount: Int,
        _ subscribeUpstreams: (_ inner: (Int) -> FanInInner<FanInSubscription>) -> Void
    ) {
        subscribe(
            downstream, machine: MergeStateMachine(upstreamCount: upstreamCount), sourceCount: upstreamCount,
            subscribeUpstreams)
    }
}
