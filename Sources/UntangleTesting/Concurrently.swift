import Foundation

/// Helpers for concurrency tests that cannot hang: run a block on several threads released together, and wait for
/// work with a watchdog instead of forever.
///
/// ```swift
/// let finished = Concurrently.run(threads: 8, timeout: 60) { thread in
///     for i in 0..<1_000 { subject.send(thread * 1_000 + i) }
/// }
/// XCTAssertTrue(finished, "deadlock?")
/// ```
///
/// Threads are dedicated `Thread`s, not GCD pool threads, so a test stays meaningful when the pool is starved.
///
/// **Thread safety:** every function may be called from any thread; bodies run concurrently with each other.
public enum Concurrently {
    /// Runs `body(index)` for `index` in `0..<threads`, each on its own thread, all released at once.
    ///
    /// The threads meet at a start barrier: none runs its body before every one of them is running, so the bodies
    /// really overlap (thread creation takes longer than many a body).
    ///
    /// - Returns: true if every body returned within `timeout` seconds; false on timeout (the stragglers keep
    ///   running: a deadlocked thread cannot be stopped, but the caller does not hang).
    @discardableResult
    public static func run(threads: Int, timeout: TimeInterval = 60, _ body: @escaping @Sendable (Int) -> Void)
        -> Bool
    {
        precondition(threads > 0, "Concurrently.run needs at least one thread")
        let barrier = StartBarrier(parties: threads)
        let done = DispatchGroup()
        for index in 0..<threads {
            done.enter()
            let thread = Thread {
                barrier.arriveAndWait()
                body(index)
                done.leave()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        return done.wait(timeout: .now() + timeout) == .success
    }

    /// Runs `body` on a fresh thread and waits at most `timeout` seconds for it.
    ///
    /// - Returns: true if `body` returned in time.
    @discardableResult
    public static func watchdog(timeout: TimeInterval = 30, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        return done.wait(timeout: .now() + timeout) == .success
    }
}

/// Holds every thread that arrives until `parties` threads have arrived, then releases them all together.
private final class StartBarrier: @unchecked Sendable {
    // @unchecked Sendable: `arrived` is only read and written with `condition` locked.
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived == parties {
            condition.broadcast()
            return
        }
        while arrived < parties {
            condition.wait()
        }
    }
}

/// Detects two threads inside the same region at once: wrap a subscriber's `receive` bodies in ``around(_:)`` and
/// check ``overlaps`` at the end.
///
/// ```swift
/// let detector = OverlapDetector()
/// let cancellable = subject.sink { value in detector.around { handle(value) } }
/// // ... drive from several threads ...
/// XCTAssertEqual(detector.overlaps, 0)
/// ```
///
/// **Thread safety:** every method may be called from any thread.
public final class OverlapDetector: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private var _overlaps = 0
    private var _entries = 0

    /// Creates a detector with no recorded entries.
    public init() {}

    /// Marks entry into the watched region.
    public func enter() {
        lock.lock()
        inside += 1
        _entries += 1
        if inside > 1 { _overlaps += 1 }
        lock.unlock()
    }

    /// Marks exit from the watched region.
    public func leave() {
        lock.lock()
        inside -= 1
        lock.unlock()
    }

    /// Runs `body` inside the watched region.
    public func around<Result>(_ body: () throws -> Result) rethrows -> Result {
        enter()
        defer { leave() }
        return try body()
    }

    /// How many entries found another thread already inside.
    public var overlaps: Int {
        lock.lock()
        defer { lock.unlock() }
        return _overlaps
    }

    /// How many times the region was entered.
    public var entries: Int {
        lock.lock()
        defer { lock.unlock() }
        return _entries
    }
}
