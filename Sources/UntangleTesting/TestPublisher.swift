import Untangle
import UntangleSync

/// A publisher the test drives by hand: it delivers what the test sends, to every subscriber still subscribed, and
/// records every `request` and `cancel` each subscription receives.
///
/// ```swift
/// let upstream = TestPublisher<Int, Never>()
/// let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
/// upstream.map { $0 * 2 }.subscribe(subscriber)
/// upstream.send(21)
/// subscriber.cancel()
/// XCTAssertEqual(upstream.subscriptions[0].events, [.request(.max(1)), .cancel])
/// XCTAssertEqual(subscriber.values, [42])
/// ```
///
/// It deliberately does not enforce demand: ``send(_:)`` delivers even to a subscriber that asked for nothing, so a
/// test can check how an operator copes with an upstream that over-delivers; compare
/// ``SubscriptionLog/requested`` with what you sent to keep a test honest. After ``send(completion:)`` the
/// publisher is finished: later sends are ignored and later subscribers receive the subscription and the
/// completion at once.
///
/// **Demand:** recorded, not enforced (see above).
/// **Thread safety:** every method may be called from any thread. Signals are delivered on the calling thread,
/// outside the publisher's lock, and are not serialized across threads: calling ``send(_:)`` from two threads at
/// once delivers concurrently (use `PassthroughSubject` for a serialized concurrent source).
public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is inside `state` (a LockedBox); subscribers are only called after
    // unlocking.

    private struct Entry {
        var log = SubscriptionLog()
        var subscriber: AnySubscriber<Output, Failure>?
    }

    private struct State {
        var entries: [Entry] = []
        var completion: Subscribers.Completion<Failure>?
    }

    private let state = LockedBox(State())

    /// Creates a publisher with no subscribers.
    public init() {}

    /// What each subscription saw, in subscription order.
    public var subscriptions: [SubscriptionLog] {
        state.withCriticalSection { $0.entries.map(\.log) }
    }

    /// The number of subscribers that have neither cancelled nor been completed.
    public var activeSubscriberCount: Int {
        state.withCriticalSection { $0.entries.lazy.filter { $0.subscriber != nil }.count }
    }

    /// Subscribes `subscriber`: it receives a subscription at once (and the completion, if the publisher has
    /// finished).
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let any = AnySubscriber(subscriber)
        let (index, completion) = state.withCriticalSection { state -> (Int, Subscribers.Completion<Failure>?) in
            state.entries.append(Entry(subscriber: state.completion == nil ? any : nil))
            return (state.entries.count - 1, state.completion)
        }
        subscriber.receive(subscription: TestSubscription(owner: self, index: index))
        if let completion { subscriber.receive(completion: completion) }
    }

    /// Delivers `value` to every active subscriber, one after the other on the calling thread.
    ///
    /// - Returns: the sum of the demands the subscribers returned.
    @discardableResult
    public func send(_ value: Output) -> Subscribers.Demand {
        let subscribers = state.withCriticalSection { state in state.entries.compactMap(\.subscriber) }
        var total = Subscribers.Demand.none
        for subscriber in subscribers {
            total += subscriber.receive(value)
        }
        return total
    }

    /// Delivers `completion` to every active subscriber and finishes the publisher. Only the first call counts.
    public func send(completion: Subscribers.Completion<Failure>) {
        let subscribers = state.withCriticalSection { state -> [AnySubscriber<Output, Failure>] in
            guard state.completion == nil else { return [] }
            state.completion = completion
            let subscribers = state.entries.compactMap(\.subscriber)
            for index in state.entries.indices { state.entries[index].subscriber = nil }
            return subscribers
        }
        for subscriber in subscribers {
            subscriber.receive(completion: completion)
        }
    }

    fileprivate func record(_ event: UpstreamEvent, index: Int) {
        let released = state.withCriticalSection { state -> AnySubscriber<Output, Failure>? in
            state.entries[index].log.events.append(event)
            guard event == .cancel else { return nil }
            defer { state.entries[index].subscriber = nil }
            return state.entries[index].subscriber
        }
        // The subscriber is released here, after unlocking (its deinit is user code).
        _ = released
    }

    private final class TestSubscription: Subscription, CustomStringConvertible {
        let owner: TestPublisher
        let index: Int

        init(owner: TestPublisher, index: Int) {
            self.owner = owner
            self.index = index
        }

        func request(_ demand: Subscribers.Demand) {
            owner.record(.request(demand), index: index)
        }

        func cancel() {
            owner.record(.cancel, index: index)
        }

        var description: String { "TestPublisher.Subscription #\(index)" }
    }
}
