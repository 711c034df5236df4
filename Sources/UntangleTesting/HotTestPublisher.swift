import Untangle
import UntangleSync

/// A virtual-time publisher playing one timeline for everyone, like a subject: an event at offset `t` happens `t`
/// after the publisher was created, on a ``TestScheduler``, and reaches whoever is subscribed then.
///
/// ```swift
/// let scheduler = TestScheduler()
/// let input: [TimedEvent<Int, Never>] = [.value(1, at: .seconds(1)), .value(2, at: .seconds(3))]
/// let publisher = scheduler.createHotPublisher(input)
/// scheduler.advance(by: .seconds(2))          // value 1 happens with nobody subscribed
/// let subscriber = TestSubscriber<Int, Never>(scheduler: scheduler)
/// publisher.subscribe(subscriber)
/// scheduler.advance(by: .seconds(2))
/// XCTAssertEqual(subscriber.values, [2])
/// ```
///
/// Events at negative offsets happened "before the test" and never play. After the completion, a new subscriber
/// receives the subscription at once and the completion at the current virtual instant (on the next `advance`).
///
/// **Demand:** honoured like `PassthroughSubject`: a value reaches a subscriber only if it has demand then; otherwise
/// that subscriber misses it. Completions need no demand.
/// **Thread safety:** every method may be called from any thread. Signals after the subscription are delivered only
/// from scheduler actions, which ``TestScheduler`` runs one at a time; nothing reaches a subscriber before its
/// `receive(subscription:)` returns. `cancel()` stops delivery at once and releases the subscriber.
public final class HotTestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: the timeline is immutable; everything else lives in `state`.

    private struct State {
        var logs: [SubscriptionLog] = []
        var subscriptions: [VirtualTimeSubscription<Output, Failure>] = []
        var completion: Subscribers.Completion<Failure>?
    }

    /// The scheduler that runs the timeline.
    public let scheduler: TestScheduler
    /// The planned events, sorted by offset.
    public let timeline: [TimedEvent<Output, Failure>]
    /// The virtual time the timeline's offsets count from: the scheduler's `now` at creation.
    public let origin: TestScheduler.SchedulerTimeType
    private let state = LockedBox(State())

    /// Creates a publisher and schedules `timeline` from the scheduler's current time (see also
    /// ``TestScheduler/createHotPublisher(_:)``).
    public init(scheduler: TestScheduler, timeline: [TimedEvent<Output, Failure>]) {
        self.scheduler = scheduler
        self.timeline = timeline.sortedTimeline(for: "HotTestPublisher")
        origin = scheduler.now
        for planned in self.timeline where planned.offset >= .zero {
            scheduler.schedule(after: origin.advanced(by: planned.offset)) { [weak self] in
                self?.play(planned.event)
            }
        }
    }

    /// What each subscription saw (subscribe and first-cancel virtual times, requests, cancels), in order.
    public var subscriptions: [SubscriptionLog] {
        state.withCriticalSection { $0.logs }
    }

    /// Subscribes `subscriber`; it receives the events that happen from now on (and, if the timeline already
    /// completed, the completion on the next `advance`).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let now = scheduler.now
        let index = state.withCriticalSection { state -> Int in
            state.logs.append(SubscriptionLog(subscribedAt: now))
            return state.logs.count - 1
        }
        let subscription = VirtualTimeSubscription<Output, Failure>(
            subscriber: AnySubscriber(subscriber), scheduler: scheduler, buffersValues: false
        ) { [state] event, time in
            state.withCriticalSection { state in
                state.logs[index].events.append(event)
                if event == .cancel, state.logs[index].cancelledAt == nil { state.logs[index].cancelledAt = time }
            }
        }
        let completion = state.withCriticalSection { state -> Subscribers.Completion<Failure>? in
            if state.completion == nil { state.subscriptions.append(subscription) }
            return state.completion
        }
        subscriber.receive(subscription: subscription)
        if let completion { subscription.arrive(.completion(completion)) }
        subscription.markReady()
    }

    private func play(_ event: TestEvent<Output, Failure>) {
        let targets = state.withCriticalSection { state -> [VirtualTimeSubscription<Output, Failure>] in
            if state.completion != nil { return [] }
            if case .completion(let completion) = event {
                state.completion = completion
                defer { state.subscriptions = [] }
                return state.subscriptions
            }
            return state.subscriptions
        }
        var sawInactive = false
        for subscription in targets {
            subscription.arrive(event)
            if !subscription.isActive { sawInactive = true }
        }
        if sawInactive {
            let removed = state.withCriticalSection { state -> [VirtualTimeSubscription<Output, Failure>] in
                let removed = state.subscriptions.filter { !$0.isActive }
                state.subscriptions.removeAll { !$0.isActive }
                return removed
            }
            _ = removed
        }
    }
}
