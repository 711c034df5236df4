import Untangle
import UntangleSync

/// A virtual-time publisher that replays a timeline from the start for each subscriber: an event at offset `t` is
/// due `t` after that subscriber subscribed, on a ``TestScheduler``.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let publisher = scheduler.createColdPublisher([.value(1, at: .seconds(1)), .finished(at: .seconds(2))] as [TimedEvent<Int, Never>])
/// let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
/// publisher.subscribe(subscriber)
/// scheduler.advance(by: .seconds(2))
/// XCTAssertEqual(subscriber.events, [.subscription, .value(1), .completion(.finished)])
/// XCTAssertEqual(publisher.subscriptions[0].subscribedAt, scheduler.now.advanced(by: .seconds(-2)))
/// ```
///
/// **Demand:** honoured like a well-behaved cold source: a value that falls due while its subscriber has no demand
/// waits in a per-subscriber buffer and is delivered (in order) once demand arrives; a completion waits behind the
/// values before it, and needs no demand. Delivery of buffered values after a `request` happens on the scheduler
/// (at the current instant, so on the next `advance` when the request was made outside one).
/// **Thread safety:** every method may be called from any thread. Signals after the subscription are delivered only
/// from scheduler actions, which ``TestScheduler`` runs one at a time, so they are serialized; nothing is delivered
/// before `receive(subscription:)` returns. `cancel()` stops delivery at once and releases the subscriber.
public final class ColdTestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: the timeline is immutable; the logs live in a LockedBox.

    /// The scheduler that runs the timeline.
    public let scheduler: TestScheduler
    /// The planned events, sorted by offset.
    public let timeline: [TimedEvent<Output, Failure>]
    private let logs = LockedBox<[SubscriptionLog]>([])

    /// Creates a publisher replaying `timeline` on `scheduler` (see also ``TestScheduler/createColdPublisher(_:)``).
    public init(scheduler: TestScheduler, timeline: [TimedEvent<Output, Failure>]) {
        self.scheduler = scheduler
        self.timeline = timeline.sortedTimeline(for: "ColdTestPublisher")
    }

    /// What each subscription saw (subscribe and first-cancel virtual times, requests, cancels), in order.
    public var subscriptions: [SubscriptionLog] {
        logs.withCriticalSection { $0 }
    }

    /// Subscribes `subscriber` and schedules the timeline relative to the current virtual time.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let start = scheduler.now
        let index = logs.withCriticalSection { logs -> Int in
            logs.append(SubscriptionLog(subscribedAt: start))
            return logs.count - 1
        }
        let subscription = VirtualTimeSubscription<Output, Failure>(
            subscriber: AnySubscriber(subscriber), scheduler: scheduler, buffersValues: true
        ) { [logs] event, time in
            logs.withCriticalSection { logs in
                logs[index].events.append(event)
                if event == .cancel, logs[index].cancelledAt == nil { logs[index].cancelledAt = time }
            }
        }
        subscriber.receive(subscription: subscription)
        subscription.markReady()
        for planned in timeline {
            scheduler.schedule(after: start.advanced(by: planned.offset)) {
                subscription.arrive(planned.event)
            }
        }
    }
}
