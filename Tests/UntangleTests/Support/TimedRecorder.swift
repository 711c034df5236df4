import Dispatch
import Untangle
import UntangleSync
import UntangleTesting

/// One signal and the virtual time (milliseconds since the recorder was created) at which it arrived.
struct Timed<Value, Failure: Error>: CustomStringConvertible {
    let ms: Int
    let event: Event<Value, Failure>

    init(_ ms: Int, _ event: Event<Value, Failure>) {
        self.ms = ms
        self.event = event
    }

    var description: String { "\(ms)ms \(event)" }
}

extension Timed: Equatable where Value: Equatable, Failure: Equatable {}

/// A ``Recorder``-like subscriber for virtual-time tests: it records each signal with the ``TestScheduler``'s clock,
/// in milliseconds since the recorder was created, so a test can assert when every event happened.
final class TimedRecorder<Input, Failure: Error>: Subscriber, @unchecked Sendable {
    private let scheduler: TestScheduler
    private let start: UInt64
    private let initialDemand: Subscribers.Demand?
    private let onValue: (TimedRecorder, Input) -> Subscribers.Demand
    private let state = LockedBox<(events: [Timed<Input, Failure>], subscription: Subscription?)>(([], nil))

    init(
        scheduler: TestScheduler, initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (TimedRecorder, Input) -> Subscribers.Demand = { _, _ in .none }
    ) {
        self.scheduler = scheduler
        self.start = scheduler.now.dispatchTime.uptimeNanoseconds
        self.initialDemand = initialDemand
        self.onValue = onValue
        LeakCheckObserver.register()
        LeakCheckObserver.cancelAtTeardown { [weak self] in self?.cancel() }
    }

    var events: [Timed<Input, Failure>] { state.withLock { $0.events } }
    var subscription: Subscription? { state.withLock { $0.subscription } }
    func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }
    func cancel() { subscription?.cancel() }

    private var nowMs: Int {
        Int((scheduler.now.dispatchTime.uptimeNanoseconds - start) / 1_000_000)
    }

    private func record(_ event: Event<Input, Failure>) {
        precondition(CalloutCheck.heldByCurrentThread == 0, "TimedRecorder: \(event) delivered under a library lock")
        let ms = nowMs
        state.withLock { $0.events.append(Timed(ms, event)) }
    }

    func receive(subscription: Subscription) {
        record(.subscription(String(describing: subscription)))
        state.withLock { $0.subscription = subscription }
        if let initialDemand, initialDemand > .none {
            subscription.request(initialDemand)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        record(.value(input))
        return onValue(self, input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        record(.completion(completion))
    }
}
