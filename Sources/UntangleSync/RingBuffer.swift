/// A FIFO queue with amortized O(1) append and removal at the front.
///
/// The emitter's queue fills only under contention (a second thread signalling while the first delivers), so it
/// starts with no storage and allocates only when it is first used.
///
/// Memory: one optional reference (8 bytes) in the value that holds it; the start, the count and the capacity live
/// in the storage object with the elements. Every emitter's state machine holds one, which keeps that state small
/// enough for the emitter's lock, word and state to fit a 112-byte allocation (128 with the array, start and count
/// inline).
///
/// Complexity: `append` O(1) amortized (O(n) when it grows or when the storage is shared and must be copied),
/// `popFirst`, `replaceLast`, `count` and `isEmpty` O(1), `remove(at:)` O(the shorter side),
/// `truncate(keepingFirst:)` O(removed), `takeAll` O(1).
///
/// **Thread safety:** a value type with no synchronization; always used under its owner's lock. Copies share the
/// storage until one of them is mutated (copy on write).
@usableFromInline
package struct RingBuffer<Element> {
    @usableFromInline var storage: RingBufferStorage<Element>?

    @inlinable
    package init() {}

    /// The number of elements.
    @inlinable
    package var count: Int {
        guard storage != nil else { return 0 }
        return withUnsafeStorage { header, _ in header.pointee.count }
    }

    @inlinable
    package var isEmpty: Bool { count == 0 }

    /// Appends at the back. O(1) amortized.
    @inlinable
    package mutating func append(_ element: Element) {
        makeUnique(minimumCapacity: count + 1)
        withUnsafeStorage { header, elements in
            (elements + (header.pointee.start + header.pointee.count) % header.pointee.capacity).initialize(to: element)
            header.pointee.count += 1
        }
    }

    /// Removes and returns the front element. O(1).
    @inlinable
    package mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        makeUnique(minimumCapacity: 0)
        return withUnsafeStorage { header, elements in
            let element = (elements + header.pointee.start).move()
            header.pointee.start = (header.pointee.start + 1) % header.pointee.capacity
            header.pointee.count -= 1
            return element
        }
    }

    /// Replaces the element at the back and returns the one it replaced, so the caller can release it outside a
    /// lock. Precondition: not empty.
    @inlinable
    package mutating func replaceLast(with element: Element) -> Element {
        precondition(!isEmpty, "RingBuffer.replaceLast on an empty buffer")
        makeUnique(minimumCapacity: 0)
        return withUnsafeStorage { header, elements in
            let slot = elements + (header.pointee.start + header.pointee.count - 1) % header.pointee.capacity
            let replaced = slot.move()
            slot.initialize(to: element)
            return replaced
        }
    }

    /// Removes and returns the element `index` places from the front, moving the elements on its shorter side (those
    /// in front of it, or those behind it) one place towards it: O(min(index, count - 1 - index)), no allocation
    /// when the storage is not shared. Precondition: `0 <= index < count`.
    @inlinable
    package mutating func remove(at index: Int) -> Element {
        precondition(index >= 0 && index < count, "RingBuffer.remove(at:) index out of range")
        makeUnique(minimumCapacity: 0)
        return withUnsafeStorage { header, elements in
            let start = header.pointee.start
            let count = header.pointee.count
            let capacity = header.pointee.capacity
            let removed = (elements + (start + index) % capacity).move()
            if index < count - 1 - index {
                // The front side is shorter: each element in front of the gap moves one place back, then the front
                // moves one place back too.
                var offset = index
                while offset > 0 {
                    (elements + (start + offset) % capacity)
                        .moveInitialize(from: elements + (start + offset - 1) % capacity, count: 1)
                    offset -= 1
                }
                header.pointee.start = (start + 1) % capacity
            } else {
                // The back side is shorter (or as short): each element behind the gap moves one place forward.
                var offset = index
                while offset < count - 1 {
                    (elements + (start + offset) % capacity)
                        .moveInitialize(from: elements + (start + offset + 1) % capacity, count: 1)
                    offset += 1
                }
            }
            header.pointee.count = count - 1
            return removed
        }
    }

    /// Keeps the first `n` elements and returns the others, in order, so the caller can release them outside a lock.
    @inlinable
    package mutating func truncate(keepingFirst n: Int) -> [Element] {
        guard n < count else { return [] }
        makeUnique(minimumCapacity: 0)
        return withUnsafeStorage { header, elements in
            var removed: [Element] = []
            removed.reserveCapacity(header.pointee.count - n)
            for offset in n..<header.pointee.count {
                removed.append((elements + (header.pointee.start + offset) % header.pointee.capacity).move())
            }
            header.pointee.count = n
            return removed
        }
    }

    /// A copy with storage of its own. Use it, under the lock that guards this buffer, to hand the elements to
    /// state that another lock guards: a plain (copy-on-write) copy would share the storage between the two locks,
    /// ordered only through its reference count, which ThreadSanitizer cannot see (so it reports the later in-place
    /// mutation by whichever side ends up holding the storage alone). O(n).
    @inlinable
    package func unsharedCopy() -> RingBuffer {
        var copy = RingBuffer()
        guard let storage, count > 0 else { return copy }
        copy.storage = RingBufferStorage.make(capacity: Swift.max(4, count), from: storage, moving: false)
        return copy
    }

    /// Empties the buffer and returns it as it was, so its elements can be released outside a lock.
    @inlinable
    package mutating func takeAll() -> RingBuffer {
        let old = self
        self = RingBuffer()
        return old
    }

    // Performance: the storage is reached through an unretained reference. Binding it (`if let storage`) would
    // retain and release it around every operation, two atomic instructions that cost more than the operation
    // (measured: zip-2 113 -> 124 ns). `self` holds the storage for the whole call, and nothing inside replaces it.
    @inlinable
    func withUnsafeStorage<Result>(
        _ body: (UnsafeMutablePointer<RingBufferHeader>, UnsafeMutablePointer<Element>) throws -> Result
    ) rethrows -> Result {
        try RawReference.borrow(storage.unsafelyUnwrapped) { storage in
            try storage.withUnsafeMutablePointers(body)
        }
    }

    /// Makes the storage unshared and gives it room for `minimumCapacity` elements (a copy, or a larger storage, if
    /// needed).
    @inlinable
    mutating func makeUnique(minimumCapacity: Int) {
        if isKnownUniquelyReferenced(&storage),
            withUnsafeStorage({ header, _ in header.pointee.capacity }) >= minimumCapacity
        {
            return
        }
        replaceStorage(minimumCapacity: minimumCapacity)
    }

    // Not inlined: growing and copying are the rare paths. A shared storage is copied at its capacity; a full one
    // is replaced by one twice as large (at least 4).
    @usableFromInline
    mutating func replaceStorage(minimumCapacity: Int) {
        let unique = isKnownUniquelyReferenced(&storage)
        let needed = Swift.max(minimumCapacity, count)
        var capacity = Swift.max(4, storage?.withUnsafeMutablePointerToHeader { $0.pointee.capacity } ?? 0)
        while capacity < needed {
            capacity *= 2
        }
        if let old = storage {
            storage = RingBufferStorage.make(capacity: capacity, from: old, moving: unique)
        } else {
            storage = RingBufferStorage.make(capacity: capacity)
        }
    }
}

/// Where a ``RingBuffer`` keeps its start, count and capacity.
@usableFromInline
package struct RingBufferHeader {
    @usableFromInline var start = 0
    @usableFromInline var count = 0
    @usableFromInline let capacity: Int

    @inlinable
    init(capacity: Int) {
        self.capacity = capacity
    }
}

/// The storage of a ``RingBuffer``: its header and the elements, in one allocation. Slots
/// `start ..< start + count` (modulo the capacity) are initialized; the others are not.
@usableFromInline
final class RingBufferStorage<Element>: ManagedBuffer<RingBufferHeader, Element> {
    @inlinable
    static func make(capacity: Int) -> RingBufferStorage {
        RawReference.downcast(
            create(minimumCapacity: capacity) { _ in RingBufferHeader(capacity: capacity) }, to: Self.self)
    }

    /// A storage of `capacity` holding `old`'s elements in order from slot 0, moved out of `old` (which is then
    /// empty) or copied (`old` is shared and keeps them).
    @usableFromInline
    static func make(capacity: Int, from old: RingBufferStorage, moving: Bool) -> RingBufferStorage {
        let fresh = make(capacity: capacity)
        old.withUnsafeMutablePointers { oldHeader, oldElements in
            fresh.withUnsafeMutablePointers { header, elements in
                for offset in 0..<oldHeader.pointee.count {
                    let source = oldElements + (oldHeader.pointee.start + offset) % oldHeader.pointee.capacity
                    if moving {
                        (elements + offset).moveInitialize(from: source, count: 1)
                    } else {
                        (elements + offset).initialize(to: source.pointee)
                    }
                }
                header.pointee.count = oldHeader.pointee.count
                if moving {
                    oldHeader.pointee.count = 0
                }
            }
        }
        return fresh
    }

    deinit {
        withUnsafeMutablePointers { header, elements in
            for offset in 0..<header.pointee.count {
                (elements + (header.pointee.start + offset) % header.pointee.capacity).deinitialize(count: 1)
            }
        }
    }
}
