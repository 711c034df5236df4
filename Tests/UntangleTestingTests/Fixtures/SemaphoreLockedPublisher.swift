import Dispatch
import Untangle

/// Emits while holding a semaphore used as a lock, which `request` also takes: a `request` made from inside
/// `receive` waits for itself forever. (The thread stays blocked; the verifier must report, not hang.)
struct SemaphoreLockedPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Inner(subscriber: AnySubscriber(subscriber)))
    }

    private final class Inner: Subscription, @unchecked Sendable {
        private let lock = DispatchSemaphore(value: 1)
        private var subscriber: AnySubscriber<Int, Never>?
        private var next = 0

        init(subscriber: AnySubscriber<Int, Never>) { self.subscriber = subscriber }

        func request(_ demand: Subscribers.Demand) {
            lock.wait()
            defer { lock.signal() }
            var remaining = demand
            while remaining > .none, let subscriber {
                next += 1
                remaining -= 1
                remaining += subscriber.receive(next)
            }
        }

        func cancel() {
            lock.wait()
            defer { lock.signal() }
            subscriber = nil
        }
    }
}
