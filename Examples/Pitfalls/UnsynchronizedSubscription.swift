// unsynchronized-subscription: request and cancel are called from any thread; the demand counter and the
// subscriber race (lost demand, a value sent after cancel, a crash releasing the subscriber twice).
import Combine

final class CounterSubscription<S: Subscriber>: Subscription where S.Input == Int {
    private var subscriber: S?
    private var demand = Subscribers.Demand.none
    private var next = 0

    init(subscriber: S) { self.subscriber = subscriber }

    func request(_ demand: Subscribers.Demand) {  // finding
        self.demand += demand
        while self.demand > 0, let subscriber {
            self.demand -= 1
            next += 1
            self.demand += subscriber.receive(next)
        }
    }

    func cancel() {  // finding
        subscriber = nil
    }
}

// Fixed: Untangle's Publishers.Create (or a Subject) does the demand bookkeeping safely; a hand-written one takes
// a lock for the state and calls the subscriber after unlocking.
final class LockedCounterSubscription<S: Subscriber>: Subscription where S.Input == Int {
    private let lock = NSLock()
    private var subscriber: S?

    init(subscriber: S) { self.subscriber = subscriber }

    func request(_ demand: Subscribers.Demand) {}

    func cancel() {
        lock.lock()
        let old = subscriber
        subscriber = nil
        lock.unlock()
        _ = old
    }
}
