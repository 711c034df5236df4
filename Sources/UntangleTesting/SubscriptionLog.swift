import Untangle

/// What a test publisher saw of one subscription: every `request` and `cancel` in order, and, for the virtual-time
/// publishers, when it was subscribed and cancelled.
///
/// ```swift
/// let log = publisher.subscriptions[0]
/// XCTAssertEqual(log.events, [.request(.unlimited), .cancel])
/// XCTAssertEqual(log.cancelledAt, scheduler.now)
/// ```
///
/// **Demand:** ``requested`` is the sum of every request (saturating at `.unlimited`).
/// **Thread safety:** a value type (a snapshot); safe to pass between threads.
public struct SubscriptionLog: Equatable, Sendable, CustomStringConvertible {
    /// Every `request(_:)` and `cancel()` the subscriber made, in order (repeated cancels included).
    public var events: [UpstreamEvent]
    /// The scheduler's `now` when the subscriber subscribed, for virtual-time publishers.
    public var subscribedAt: TestScheduler.SchedulerTimeType?
    /// The scheduler's `now` at the first `cancel()`, for virtual-time publishers.
    public var cancelledAt: TestScheduler.SchedulerTimeType?

    /// Creates a log.
    public init(
        events: [UpstreamEvent] = [],
        subscribedAt: TestScheduler.SchedulerTimeType? = nil,
        cancelledAt: TestScheduler.SchedulerTimeType? = nil
    ) {
        self.events = events
        self.subscribedAt = subscribedAt
        self.cancelledAt = cancelledAt
    }

    /// The sum of every requested demand.
    public var requested: Subscribers.Demand {
        events.reduce(Subscribers.Demand.none) { total, event in
            if case .request(let demand) = event { return total + demand }
            return total
        }
    }

    /// Whether `cancel()` was called at least once.
    public var isCancelled: Bool {
        events.contains(.cancel)
    }

    /// The events, and the virtual times when known.
    public var description: String {
        var text = "\(events)"
        if let subscribedAt { text += " subscribed at \(subscribedAt.dispatchTime.uptimeNanoseconds)" }
        if let cancelledAt { text += " cancelled at \(cancelledAt.dispatchTime.uptimeNanoseconds)" }
        return text
    }
}
