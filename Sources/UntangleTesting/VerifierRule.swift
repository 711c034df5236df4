/// A rule of the publisher contract that ``PublisherVerifier`` checks, each with a readable name.
///
/// ```swift
/// let report = verifier.verify(rules: [.demandStepwise, .cancelWhileInsideSubscriber])
/// ```
///
/// **Thread safety:** a value type.
public enum VerifierRule: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `receive(subscription:)` comes first, exactly once.
    case subscriptionFirstAndOnce
    /// No value before any request, and never more than requested: request 0, then 1, 1, 2.
    case demandStepwise
    /// Demand returned from `receive(_:)`, one value at a time.
    case demandReturnedFromReceive
    /// `request(.max(1))` from inside `receive(_:)` over a long stream: bounded recursion, nothing lost.
    case requestFromInsideReceive
    /// `request(.unlimited)`: everything promised arrives, then the completion.
    case unlimitedDemand
    /// Requests near `Int.max`, several times: they add up without overflow.
    case largeDemand
    /// At most one completion, and nothing after it, even when requested or cancelled afterwards.
    case completionOnce
    /// The completion arrives without extra demand once the promised values are delivered.
    case completionWithoutDemand
    /// `cancel()` repeated and concurrent is harmless; nothing arrives after it (but one delivery already in flight
    /// on another thread).
    case cancelIdempotent
    /// `cancel()` from inside `receive(_:)` stops delivery at once.
    case cancelStopsDelivery
    /// `cancel()` from another thread while a delivery is running: at most that delivery completes.
    case cancelRacingDelivery
    /// `cancel()` returns promptly while another thread is blocked inside the subscriber.
    case cancelWhileInsideSubscriber
    /// `request(_:)` from several threads at once: all demand counts, deliveries never overlap.
    case concurrentRequests
    /// The fixture's `drive` from several threads at once: deliveries never overlap.
    case concurrentDrive
    /// After `cancel()`, the subscriber and the subscription are released.
    case releaseAfterCancel
    /// After the completion, the subscriber and the subscription are released.
    case releaseAfterCompletion

    /// The rule in words, as reports print it.
    public var description: String {
        switch self {
        case .subscriptionFirstAndOnce: return "subscription first and exactly once"
        case .demandStepwise: return "never more values than demanded (request 0, then 1, 1, 2)"
        case .demandReturnedFromReceive: return "demand returned from receive(_:), one by one"
        case .requestFromInsideReceive: return "request(_:) from inside receive(_:): bounded recursion"
        case .unlimitedDemand: return "request(.unlimited)"
        case .largeDemand: return "large requests add up without overflow"
        case .completionOnce: return "completion at most once, nothing after it"
        case .completionWithoutDemand: return "completion delivered without demand"
        case .cancelIdempotent: return "cancel idempotent (repeated and concurrent)"
        case .cancelStopsDelivery: return "cancel from inside receive(_:) stops delivery"
        case .cancelRacingDelivery: return "cancel racing a delivery on another thread"
        case .cancelWhileInsideSubscriber: return "cancel prompt while another thread is inside the subscriber"
        case .concurrentRequests: return "request(_:) from several threads: demand adds up, no overlap"
        case .concurrentDrive: return "driven from several threads: deliveries never overlap"
        case .releaseAfterCancel: return "subscriber and subscription released after cancel"
        case .releaseAfterCompletion: return "subscriber and subscription released after completion"
        }
    }
}
