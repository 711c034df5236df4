import UntangleSync

/// The upstream whose `receive(_:)` is delivering a group downstream, and on which thread, with the demand that will
/// go back to it as its return value (zip's, as Combine's: demand requested or returned during that delivery goes
/// back to that upstream).
///
/// Only the forwarder delivers groups, and one thread at a time is the forwarder (the outbox's claim, under the
/// subscription's lock), so there is at most one sender. `thread` names it (0: none); `index` and `demand` are read and
/// written only by the thread `thread` names, so they need no lock: another thread that reads `thread` sees a
/// different identity and leaves them alone, and the next forwarder's claim under the subscription's lock orders its
/// writes after the previous one's.
///
/// ```swift
/// senders.enter(index)                  // the forwarder, before delivering a group for upstream `index`
/// let demand = senders.leave()          // after: the demand to return from that upstream's `receive(_:)`
/// ```
///
/// **Demand:** what `absorb` takes goes back to the sender as its return value, not as a request.
/// **Thread safety:** `absorb` from any thread (zip's machine calls it under its lock); `enter`/`leave` by the
/// forwarder.
@usableFromInline
final class CombiningSender: @unchecked Sendable {
    @usableFromInline let thread = AtomicWord(0)
    @exclusivity(unchecked) @usableFromInline var index = 0
    @exclusivity(unchecked) @usableFromInline var demand = Subscribers.Demand.none

    @inlinable
    init() {}

    /// Upstream `index` starts delivering a group on this thread.
    @inlinable
    func enter(_ index: Int) {
        self.index = index
        demand = .none
        _ = thread.exchange(ThreadID.current.bits)
    }

    /// The delivery is over: the demand to return from the upstream's `receive(_:)`.
    @inlinable
    func leave() -> Subscribers.Demand {
        _ = thread.exchange(0)
        return demand
    }

    /// Demand requested on this thread: if an upstream is delivering here, it takes the demand as its return value;
    /// returns its index (nil: no upstream is delivering on this thread).
    @inlinable
    func absorb(_ more: Subscribers.Demand) -> Int? {
        guard thread.load() == ThreadID.current.bits else { return nil }
        demand += more
        return index
    }
}
