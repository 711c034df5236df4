import UntangleSync

/// What a ``CombiningStateMachine`` tells its subscription to do after unlocking.
///
/// **Demand:** not applicable.
/// **Thread safety:** a value.
@usableFromInline
struct CombiningEffects {
    /// The caller became the forwarder: it must run the forwarding loop.
    @usableFromInline var startForwarding = false
    /// Upstream subscriptions to cancel.
    @usableFromInline var cancel: [Subscription] = []
    /// Values no longer needed, released by the caller outside the lock (their deinit is user code).
    @usableFromInline var release: [Any] = []
}

/// The forwarder's next step.
@usableFromInline
enum CombiningForward {
    case value([Any])
    case finish
    /// Nothing to forward now; the caller is no longer the forwarder.
    case idle
}

/// The pure state machine of a multi-input operator that forms output groups from one value of each upstream (zip
/// pairs the oldest unconsumed values). ``CombiningSubscription`` runs it on the ``FanIn`` skeleton (which asks it,
/// as every fan-in's machine, `innerSubscribed` when an upstream's subscription arrives); each method is called under
/// the subscription's lock and returns what to do after unlocking. (combineLatest has a subscription of its own on the
/// same skeleton, ``CombineLatestSubscription``, which keeps its latest values typed.)
///
/// Values are type-erased (`Any`): input `i` only ever stores its own publisher's output, and the generated
/// publishers cast each group back into its tuple, so one hand-written core serves every arity.
///
/// **Demand:** defined by the conforming machine.
/// **Thread safety:** none: always mutated under the subscription's lock.
@usableFromInline
protocol CombiningStateMachine: FanInInnerStateMachine {
    /// The operator's name, used as the subscription's description (`Zip`).
    static var name: String { get }

    init(upstreamCount: Int)

    /// The downstream asked for more: the subscriptions to forward the request to.
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription]
    mutating func received(_ value: Any, at index: Int) -> CombiningEffects
    mutating func finished(at index: Int) -> CombiningEffects
    /// Nil if the operator had already ended.
    mutating func failed(at index: Int) -> CombiningEffects?
    /// Nil if the operator had already ended.
    mutating func cancelled() -> CombiningEffects?
    /// The forwarder's next step (groups in the order they formed, then the finish).
    mutating func nextToForward() -> CombiningForward
    /// See the default implementation (false).
    static var returnsDemandToSender: Bool { get }
    /// See the default implementation (all subscriptions).
    mutating func request(_ demand: Subscribers.Demand, except sender: Int) -> [Subscription]
}

extension CombiningStateMachine {
    /// Whether demand the downstream requests or returns while an upstream's `receive(_:)` is delivering a group on
    /// the same thread goes back to that upstream as the return value of its `receive(_:)` (and to the others as a
    /// request), as Combine's zip does. False by default: every upstream is asked with `request`.
    @inlinable
    static var returnsDemandToSender: Bool { false }

    /// The downstream asked for more while upstream `sender` is delivering: the subscriptions to forward the request
    /// to, leaving out the sender's (it gets the demand as its return value). By default, all of them.
    @inlinable
    mutating func request(_ demand: Subscribers.Demand, except sender: Int) -> [Subscription] {
        request(demand)
    }
}

/// The upstream whose `receive(_:)` is delivering a group downstream, and on which thread, with the demand that will
/// go back to it as its return value (used when ``CombiningStateMachine/returnsDemandToSender``).
///
/// Only the forwarder delivers groups, and one thread at a time is the forwarder (the outbox's claim, under the
/// subscription's lock), so there is at most one sender. `thread` names it (0: none); `index` and `demand` are read and
/// written only by the thread `thread` names, so they need no lock: another thread that reads `thread` sees a
/// different identity and leaves them alone, and the next forwarder's claim under the subscription's lock orders its
/// writes after the previous one's.
///
/// **Demand:** see ``CombiningStateMachine/returnsDemandToSender``.
/// **Thread safety:** `absorb` from any thread; `enter`/`leave` by the forwarder.
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
