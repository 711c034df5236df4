import Untangle
import UntangleSync

/// A naive synchronous sequence: `request` delivers right away, so a `request` made inside `receive` recurses.
/// Its demand bookkeeping is locked, but nothing bounds the recursion.
struct RecursiveSequencePublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    let count: Int

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(count: count, subscriber: AnySubscriber(subscriber)))
    }

    private final class Inner: Subscription, @unchecked Sendable {
        private let state: LockedBox<(next: Int, subscriber: AnySubscriber<Int, Never>?)>
        private let count: Int

        init(count: Int, subscriber: AnySubscriber<Int, Never>) {
            self.count = count
            state = LockedBox((0, subscriber))
        }

        func request(_ demand: Subscribers.Demand) {
            var remaining = demand
            while remaining > .none {
                let step = state.withLock { state -> (AnySubscriber<Int, Never>, Int?)? in
                    guard let subscriber = state.subscriber else { return nil }
                    guard state.next < count else {
                        state.subscriber = nil
                        return (subscriber, nil)
                    }
                    state.next += 1
                    return (subscriber, state.next - 1)
                }
                guard let (subscriber, value) = step else { return }
                guard let value else {
                    subscriber.receive(completion: .finished)
                    return
                }
                remaining -= 1
                remaining += subscriber.receive(value)  // a request made in there recurses into request(_:)
            }
        }

        func cancel() {
            let released = state.withLock { state -> AnySubscriber<Int, Never>? in
                defer { state.subscriber = nil }
                return state.subscriber
            }
            _ = released
        }
    }
}
