// buffer-state-outside-lock: the buffer drains its values under the lock, but appends without it; a value sent on one
// thread while another requests demand races with the drain (a value lost or delivered twice, a crash in the array).
import Combine
import Foundation

final class DemandBuffer<S: Subscriber> {
    private let lock = NSRecursiveLock()
    private var buffer = [S.Input]()
    private let subscriber: S

    init(subscriber: S) { self.subscriber = subscriber }

    func buffer(value: S.Input) {
        buffer.append(value)  // finding
        drain()
    }

    func drain() {
        lock.lock()
        let values = buffer
        buffer.removeAll()
        lock.unlock()
        for value in values { _ = subscriber.receive(value) }
    }
}

// Fixed: the append takes the lock the drain takes.
final class FixedDemandBuffer<S: Subscriber> {
    private let lock = NSRecursiveLock()
    private var buffer = [S.Input]()
    private let subscriber: S

    init(subscriber: S) { self.subscriber = subscriber }

    func buffer(value: S.Input) {
        lock.lock()
        buffer.append(value)
        lock.unlock()
    }

    func drain() {
        lock.lock()
        let values = buffer
        buffer.removeAll()
        lock.unlock()
        for value in values { _ = subscriber.receive(value) }
    }
}
