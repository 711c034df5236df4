import Untangle

/// A call a subscriber made on a test publisher's subscription.
///
/// ```swift
/// XCTAssertEqual(publisher.subscriptions[0].events, [.request(.max(1)), .cancel])
/// ```
///
/// **Demand:** `.request` carries the demand exactly as passed to `request(_:)`.
/// **Thread safety:** a value type; safe to pass between threads.
public enum UpstreamEvent: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// `request(_:)` with this demand.
    case request(Subscribers.Demand)
    /// `cancel()`.
    case cancel

    /// `request(max(1))` or `cancel`.
    public var description: String {
        switch self {
        case .request(let demand): return "request(\(demand))"
        case .cancel: return "cancel"
        }
    }
}
