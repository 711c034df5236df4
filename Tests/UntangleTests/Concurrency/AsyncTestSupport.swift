import Untangle
import UntangleSync

/// A hand-driven upstream for async tests: every request and cancel made on its subscription is recorded and also
/// published on `events`, so a test can `await` the next one instead of polling or sleeping.
final class AsyncProbePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    enum UpstreamEvent: Equatable, Sendable, CustomStringConvertible {
        case request(Subscribers.Demand)
        case cancel
        var description: String {
            switch self {
            case .request(let demand): return "request(\(demand))"
            case .cancel: return "cancel"
            }
        }
    }

    let events: AsyncStream<UpstreamEvent>
    private let continuation: AsyncStream<UpstreamEvent>.Continuation
    private let state = LockedBox<(history: [UpstreamEvent], downstream: AnySubscriber<Output, Failure>?)>(([], nil))

    init() {
        (events, continuation) = AsyncStream.makeStream(of: UpstreamEvent.self)
    }

    var history: [UpstreamEvent] { state.withLock { $0.history } }
    var isSubscribed: Bool { state.withLock { $0.downstream != nil } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        state.withLock { $0.downstream = AnySubscriber(subscriber) }
        subscriber.receive(subscription: ProbeSubscription(owner: self))
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        state.withLock { $0.downstream }?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        state.withLock { $0.downstream }?.receive(completion: completion)
    }

    fileprivate func record(_ event: UpstreamEvent) {
        let released = state.withLock { state -> AnySubscriber<Output, Failure>? in
            state.history.append(event)
            guard case .cancel = event else { return nil }
            defer { state.downstream = nil }
            return state.downstream
        }
        withExtendedLifetime(released) {}
        continuation.yield(event)
    }

    private final class ProbeSubscription: Subscription, CustomStringConvertible {
        let owner: AsyncProbePublisher
        init(owner: AsyncProbePublisher) { self.owner = owner }
        func request(_ demand: Subscribers.Demand) { owner.record(.request(demand)) }
        func cancel() { owner.record(.cancel) }
        var description: String { "ProbeSubscription" }
    }
}
