import Foundation
import Untangle
import UntangleSync

/// An upstream that signals its subscriber from inside the subscriber's own `cancel()` (or `request`): the shape of
/// the reentrancy bugs other Combine implementations shipped (a completion sent while the subscriber cancels, an
/// upstream failing while one of its children is being cancelled). The test says what happens in `onCancel` and
/// `onRequest`; the publisher keeps its subscriber so the closures (and the test) can signal it.
package final class ReentrantUpstream<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let state = LockedBox<(subscriber: AnySubscriber<Output, Failure>?, log: [String])>((nil, []))
    private let onCancel: (ReentrantUpstream) -> Void
    private let onRequest: (ReentrantUpstream, Subscribers.Demand) -> Void

    package init(
        onRequest: @escaping (ReentrantUpstream, Subscribers.Demand) -> Void = { _, _ in },
        onCancel: @escaping (ReentrantUpstream) -> Void = { _ in }
    ) {
        self.onRequest = onRequest
        self.onCancel = onCancel
    }

    /// What the subscriber did to its subscription, in order (`"request(max(1))"`, `"cancel"`).
    package var log: [String] { state.withLock { $0.log } }

    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        state.withLock { $0.subscriber = AnySubscriber(subscriber) }
        subscriber.receive(subscription: Inner(owner: self))
    }

    /// Sends a value to the current subscriber (none once it finished), returning its extra demand.
    @discardableResult
    package func send(_ value: Output) -> Subscribers.Demand {
        state.withLock { $0.subscriber }?.receive(value) ?? .none
    }

    /// Sends `.finished` and forgets the subscriber.
    package func finish() { send(completion: .finished) }

    /// Sends a completion and forgets the subscriber.
    package func send(completion: Subscribers.Completion<Failure>) {
        let subscriber = state.withLock { state -> AnySubscriber<Output, Failure>? in
            defer { state.subscriber = nil }
            return state.subscriber
        }
        subscriber?.receive(completion: completion)
    }

    private final class Inner: Subscription {
        let owner: ReentrantUpstream
        init(owner: ReentrantUpstream) { self.owner = owner }

        func request(_ demand: Subscribers.Demand) {
            owner.state.withLock { $0.log.append("request(\(demand))") }
            owner.onRequest(owner, demand)
        }

        func cancel() {
            owner.state.withLock { $0.log.append("cancel") }
            owner.onCancel(owner)
        }
    }
}
