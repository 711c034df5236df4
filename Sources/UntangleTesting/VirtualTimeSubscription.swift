import Untangle
import UntangleSync

/// The subscription of the virtual-time test publishers: keeps the subscriber, its demand and (for cold
/// publishers) the values waiting for demand, and delivers from scheduler actions only.
final class VirtualTimeSubscription<Output, Failure: Error>: Subscription, CustomStringConvertible,
    @unchecked Sendable
{
    // @unchecked Sendable: mutable state is in `state`; the subscriber is called only after unlocking.

    private struct State {
        var subscriber: AnySubscriber<Output, Failure>?
        var demand = Subscribers.Demand.none
        var buffer: [TestEvent<Output, Failure>] = []
        var ready = false
        var drainScheduled = false

        /// The next signal to deliver, decided and removed under the lock.
        mutating func next() -> (AnySubscriber<Output, Failure>, TestEvent<Output, Failure>)? {
            guard ready, let subscriber, let first = buffer.first else { return nil }
            switch first {
            case .value:
                guard demand > .none else { return nil }
                demand -= 1
                buffer.removeFirst()
                return (subscriber, first)
            case .completion:
                buffer.removeAll()
                self.subscriber = nil
                return (subscriber, first)
            case .subscription:
                buffer.removeFirst()
                return nil
            }
        }
    }

    private let state: LockedBox<State>
    private let scheduler: TestScheduler
    private let buffersValues: Bool
    private let log: (UpstreamEvent, TestScheduler.SchedulerTimeType) -> Void

    init(
        subscriber: AnySubscriber<Output, Failure>, scheduler: TestScheduler, buffersValues: Bool,
        log: @escaping (UpstreamEvent, TestScheduler.SchedulerTimeType) -> Void
    ) {
        state = LockedBox(State(subscriber: subscriber))
        self.scheduler = scheduler
        self.buffersValues = buffersValues
        self.log = log
    }

    var description: String { buffersValues ? "ColdTestPublisher.Subscription" : "HotTestPublisher.Subscription" }

    var isActive: Bool {
        state.withCriticalSection { $0.subscriber != nil }
    }

    /// Called once `receive(subscription:)` has returned: from now on signals may be delivered.
    func markReady() {
        // Anything that arrived meanwhile is delivered from a scheduler action, like every other delivery, so it
        // cannot overlap a delivery the scheduler is making on another thread.
        let scheduleDrain = state.withCriticalSection { state -> Bool in
            state.ready = true
            guard !state.buffer.isEmpty, !state.drainScheduled else { return false }
            state.drainScheduled = true
            return true
        }
        if scheduleDrain {
            scheduler.schedule { [weak self] in self?.drain() }
        }
    }

    /// An event of the timeline fell due (called from a scheduler action).
    func arrive(_ event: TestEvent<Output, Failure>) {
        let accepted = state.withCriticalSection { state -> Bool in
            guard state.subscriber != nil else { return false }
            if case .value = event, !buffersValues, !(state.ready && state.demand > .none) {
                // A hot publisher drops what its subscriber has no demand for, like a subject.
                return false
            }
            state.buffer.append(event)
            return true
        }
        if accepted { drain() }
    }

    // Only scheduler actions drain, and TestScheduler runs one action
    // at a time, so deliveries are serialized. Each step is decided under the lock; the subscriber is called after.
    private func drain() {
        while let (subscriber, event) = state.withCriticalSection({
            state -> (AnySubscriber<Output, Failure>, TestEvent<Output, Failure>)? in
            state.drainScheduled = false
            return state.next()
        }) {
            switch event {
            case .value(let value):
                let more = subscriber.receive(value)
                if more > .none { state.withCriticalSection { $0.demand += more } }
            case .completion(let completion):
                subscriber.receive(completion: completion)
            case .subscription:
                break
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        precondition(demand > .none, "Subscription.request(_:) needs a positive demand (got .none)")
        log(.request(demand), scheduler.now)
        let scheduleDrain = state.withCriticalSection { state -> Bool in
            guard state.subscriber != nil else { return false }
            state.demand += demand
            guard !state.buffer.isEmpty, !state.drainScheduled else { return false }
            state.drainScheduled = true
            return true
        }
        if scheduleDrain {
            scheduler.schedule { [weak self] in self?.drain() }
        }
    }

    func cancel() {
        log(.cancel, scheduler.now)
        let released = state.withCriticalSection {
            state -> (AnySubscriber<Output, Failure>?, [TestEvent<Output, Failure>]) in
            defer {
                state.subscriber = nil
                state.buffer = []
            }
            return (state.subscriber, state.buffer)
        }
        // The subscriber and buffered values are released here, after unlocking.
        _ = released
    }
}
