/// A FIFO queue with amortized O(1) append and removal at the front.
///
/// The emitter's queue fills only under contention (a second thread signalling while the first delivers), so it
/// starts with no storage and allocates only when it is first used.
///
/// **Demand:** not applicable (storage).
/// **Thread safety:** a value type with no synchronization; always used under its owner's lock.
@usableFromInline
package struct RingBuffer<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0
    @usableFromInline package private(set) var count = 0

    @inlinable
    package init() {}

    @inlinable
    package var isEmpty: Bool { count == 0 }

    /// Appends at the back. O(1) amortized.
    @inlinable
    package mutating func append(_ element: Element) {
        if count == storage.count {
            grow()
        }
        storage[(head + count) % storage.count] = element
        count += 1
    }

    /// Removes and returns the front element. O(1).
    @inlinable
    package mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head].take()
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    /// Replaces the element at the back. Precondition: not empty.
    @inlinable
    package mutating func replaceLast(with element: Element) {
        precondition(count > 0, "RingBuffer.replaceLast on an empty buffer")
        storage[(head + count - 1) % storage.count] = element
    }

    /// Keeps the first `n` elements and returns the others, in order, so the caller can release them outside a lock.
    @inlinable
    package mutating func truncate(keepingFirst n: Int) -> [Element] {
        var removed: [Element] = []
        guard n < count else { return removed }
        removed.reserveCapacity(count - n)
        for offset in n..<count {
            removed.append(storage[(head + offset) % storage.count].take()!)
        }
        count = n
        return removed
    }

    /// Empties the buffer and returns it as it was, so its elements can be released outside a lock.
    @inlinable
    package mutating func takeAll() -> RingBuffer {
        let old = self
        self = RingBuffer()
        return old
    }

    @usableFromInline
    mutating func grow() {
        let newCapacity = Swift.max(4, storage.count * 2)
        var newStorage = [Element?](repeating: nil, count: newCapacity)
        for offset in 0..<count {
            newStorage[offset] = storage[(head + offset) % storage.count].take()
        }
        storage = newStorage
        head = 0
    }
}
