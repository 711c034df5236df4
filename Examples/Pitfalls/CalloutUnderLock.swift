// callout-under-lock: the buffer hands a value to its subscriber while holding its lock; a subscriber that requests
// more (or cancels) from receive(_:) re-enters and deadlocks on the lock.
import Combine
import Foundation

final class BufferSubscription<S: Subscriber>: Subscription where S.Input == Int {
    private let lock = NSLock()
    private var demand = Subscribers.Demand.none
    private var subscriber: S?

    init(subscriber: S) { self.subscriber = subscriber }

    func deliver(_ value: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard demand > 0, let subscriber else { return }
        demand -= 1
        demand += subscriber.receive(value)  // finding
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        self.demand += demand
        lock.unlock()
    }

    func cancel() {
        lock.lock()
        subscriber = nil
        lock.unlock()
    }
}

// Fixed: decide under the lock, call the subscriber after unlocking, add the new demand under the lock again.
final class FixedBufferSubscription<S: Subscriber>: Subscription where S.Input == Int {
    private let lock = NSLock()
    private var demand = Subscribers.Demand.none
    private var subscriber: S?

    init(subscriber: S) { self.subscriber = subscriber }

    func deliver(_ value: Int) {
        lock.lock()
        guard demand > 0, let subscriber else {
            lock.unlock()
            return
        }
        demand -= 1
        lock.unlock()
        let more = subscriber.receive(value)
        lock.lock()
        demand += more
        lock.unlock()
    }

    func request(_ demand: Subscribers.Demand) {
        lock.lock()
        self.demand += demand
        lock.unlock()
    }

    func cancel() {
        lock.lock()
        subscriber = nil
        lock.unlock()
    }
}
