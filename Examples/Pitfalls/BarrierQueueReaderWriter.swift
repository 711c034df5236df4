// barrier-queue-reader-writer: the "thread-safe array" on a concurrent queue. Every read blocks a pool thread in
// `.sync`; with the pool starved (readers called from pool work), the barrier write never gets a thread: deadlock.
import Dispatch

final class SafeArray<Element> {
    private var storage: [Element] = []
    private let queue = DispatchQueue(label: "safe-array", attributes: .concurrent)  // finding

    var count: Int { queue.sync { storage.count } }

    func append(_ element: Element) {
        queue.async(flags: .barrier) { self.storage.append(element) }
    }
}

// Fixed: a lock. Reads and writes take it briefly; nothing blocks a pool thread waiting for another.
final class FixedSafeArray<Element> {
    private let storage = LockedBox<[Element]>([])

    var count: Int { storage.withLock { $0.count } }

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }
}
