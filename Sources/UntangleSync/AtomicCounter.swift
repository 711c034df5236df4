import Synchronization

/// A shared integer whose every operation is one indivisible step: the counter you reach for instead of an
/// `@Atomic` property wrapper.
///
/// A property wrapper that takes a lock in `get` and again in `set` (the `@Atomic` pattern of many GCD guides) makes
/// each *access* atomic, but `counter += 1` is a read followed by a write: two critical sections, with a window
/// between them in which another thread's increment is overwritten. Under contention such a counter loses updates.
/// The read-modify-write must be one step: ``increment()``/``add(_:)`` here, or, for values that are not integers,
/// one ``LockedBox/withLock(_:)`` or ``LockedBox/update(_:)`` call.
///
/// ```swift
/// let served = AtomicCounter()
/// DispatchQueue.concurrentPerform(iterations: 1_000) { _ in served.increment() }
/// print(served.load())  // 1000, always
/// ```
///
/// Every operation is sequentially consistent. `add(_:)`, `increment()` and `decrement()` trap on overflow, like
/// `Int`'s `+`.
///
/// **Thread safety:** every method may be called from any thread, concurrently; each is a single atomic step that
/// never blocks and never calls out.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class AtomicCounter: Sendable {
    private let storage: Atomic<Int>

    /// Creates a counter holding `initialValue`.
    ///
    /// ```swift
    /// let remaining = AtomicCounter(10)
    /// ```
    ///
    /// **Thread safety:** the new counter may be shared with any thread.
    public init(_ initialValue: Int = 0) {
        storage = Atomic(initialValue)
    }

    /// The current value.
    ///
    /// ```swift
    /// if counter.load() == 0 { print("idle") }
    /// ```
    ///
    /// A loaded value may be stale as soon as it is returned; never follow it with a `store` computed from it
    /// (that is the lost-update bug); use ``add(_:)`` or ``compareExchange(expected:desired:)``.
    ///
    /// **Thread safety:** may be called from any thread.
    public func load() -> Int {
        storage.load(ordering: .sequentiallyConsistent)
    }

    /// Replaces the value.
    ///
    /// ```swift
    /// counter.store(0)
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    public func store(_ value: Int) {
        storage.store(value, ordering: .sequentiallyConsistent)
    }

    /// Adds one and returns the new value.
    ///
    /// ```swift
    /// let ticketNumber = counter.increment()
    /// ```
    ///
    /// **Thread safety:** may be called from any thread; concurrent increments never lose an update and every call
    /// returns a distinct value.
    @discardableResult
    public func increment() -> Int {
        add(1)
    }

    /// Subtracts one and returns the new value.
    ///
    /// ```swift
    /// if inFlight.decrement() == 0 { print("drained") }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    @discardableResult
    public func decrement() -> Int {
        add(-1)
    }

    /// Adds `delta` (which may be negative) and returns the new value.
    ///
    /// ```swift
    /// let total = bytes.add(chunk.count)
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    @discardableResult
    public func add(_ delta: Int) -> Int {
        storage.add(delta, ordering: .sequentiallyConsistent).newValue
    }

    /// Replaces the value and returns the one it replaced.
    ///
    /// ```swift
    /// let countSinceLastReport = counter.exchange(0)
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    public func exchange(_ value: Int) -> Int {
        storage.exchange(value, ordering: .sequentiallyConsistent)
    }

    /// Stores `desired` only if the value is still `expected`; returns whether it did and the value it found.
    ///
    /// ```swift
    /// // Raise a shared maximum without losing a concurrent raise.
    /// var seen = maximum.load()
    /// while candidate > seen {
    ///     let (exchanged, original) = maximum.compareExchange(expected: seen, desired: candidate)
    ///     if exchanged { break }
    ///     seen = original
    /// }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    public func compareExchange(expected: Int, desired: Int) -> (exchanged: Bool, original: Int) {
        storage.compareExchange(expected: expected, desired: desired, ordering: .sequentiallyConsistent)
    }
}
