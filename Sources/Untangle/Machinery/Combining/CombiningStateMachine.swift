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
    /// One value no longer needed (combineLatest's previous latest value, on every value it receives), released like
    /// `release`: kept apart so that the common case allocates no array.
    @usableFromInline var replaced: Any?
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
/// pairs the oldest unconsumed values; combineLatest takes the latest ones). ``CombiningSubscription`` runs it; each
/// method is called under the subscription's lock and returns what to do after unlocking.
///
/// Values are type-erased (`Any`): input `i` only ever stores its own publisher's output, and the generated
/// publishers cast each group back into its tuple, so one hand-written core serves every arity.
///
/// **Demand:** defined by the conforming machine.
/// **Thread safety:** none: always mutated under the subscription's lock.
@usableFromInline
protocol CombiningStateMachine {
    /// The operator's name, used as the subscription's description (`Zip`, `CombineLatest`).
    static var name: String { get }

    init(upstreamCount: Int)

    /// Upstream `index` delivered its subscription: the demand to request from it (nil: cancel it).
    mutating func subscribed(_ subscription: Subscription, at index: Int) -> Subscribers.Demand?
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
}
