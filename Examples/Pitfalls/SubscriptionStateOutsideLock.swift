// subscription-state-outside-lock: cancel clears the subscriber under the lock, but receive reads it
// without the lock; on another thread the two race (a value delivered after cancel, a released subscriber used).
import Combine
import Foundation

final class RelaySubscription<S: Subscriber>: Subscription where S.Input == Int {
    private let lock = NSLock()
    private var subscriber: S?
    private var demand = Subscribers.Demand.none

    init(subscriber: S) { self.subscriber = subscriber }

    func receive(_ value: Int) {
        guard let subscriber, demand > 0 else { return }  // finding
        lock.lock()
        demand -= 1
        lock.unlock()
        _ = subscriber.receive(value)
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock { self.demand += demand }
    }

    func cancel() {
        lock.withLock { subscriber = nil }
    }
}

// Fixed: every access to the shared state takes the lock; the call out happens after unlocking. (request and cancel
// as above.)
final class FixedRelaySubscription<S: Subscriber> where S.Input == Int {
    private let lock = NSLock()
    private var subscriber: S?
    private var demand = Subscribers.Demand.none

    func receive(_ value: Int) {
        lock.lock()
        guard let subscriber, demand > 0 else {
            lock.unlock()
            return
        }
        demand -= 1
        lock.unlock()
        _ = subscriber.receive(value)
    }
}
