import Dispatch

/// Runs at most `maxConcurrent` jobs at once, starting queued jobs in submission order, without blocking any thread.
///
/// This replaces the GCD pattern of calling `semaphore.wait()` inside `DispatchQueue.global().async`: there, every
/// job beyond the limit parks a pool thread, and a thousand jobs make the pool grow towards a thousand threads (or
/// stall once it stops growing). Here a job beyond the limit is only an entry in a queue; no thread waits for a slot.
/// When a running job finishes, the limiter starts the oldest queued job.
///
/// ```swift
/// let downloads = ConcurrencyLimiter(maxConcurrent: 3)
/// for url in urls {
///     downloads.submit { done in
///         fetch(url) { data in
///             store(data)
///             done()  // frees the slot: exactly once per job
///         }
///     }
/// }
/// // From async code: waits for a slot without blocking a thread.
/// let page = try await downloads.run { try await fetchPage(url) }
/// ```
///
/// Three kinds of job share the same slots and the same first-in-first-out queue:
/// - ``submit(_:)``: a closure that receives a `done` callback and calls it exactly once when the job is finished,
///   possibly later and from another thread. It is started by `queue.async` on the `DispatchQueue` given to
///   ``init(maxConcurrent:queue:)`` (by default `DispatchQueue.global()`). Calling `done` a second time is a
///   precondition failure; never calling it leaks the slot for the life of the limiter.
/// - ``submit(priority:_:)``: an `async` closure, started as a new unstructured `Task`; its slot is freed when it
///   returns. The `queue` is not used.
/// - ``run(isolation:_:)``: awaits a slot in the calling task (suspending, not blocking), runs the operation there,
///   and frees the slot when it returns or throws.
///
/// Jobs from ``submit(_:)`` and ``submit(priority:_:)`` return a ``Ticket`` that can cancel them: a queued job is
/// removed and never starts. ``cancelAll()`` does the same for every queued submitted job.
///
/// Where jobs run: the default `DispatchQueue.global()` is shared with everything else in the process. If other code
/// may starve that pool by blocking its threads (on Linux, measured: after 64 work items blocked on a semaphore,
/// 1,000 further trivial global work items had not run 20 s later), pass a queue you own, such as a serial
/// `DispatchQueue(label:)`, which is served by a thread of its own. The limiter itself never blocks a thread, so it
/// never adds to such starvation. `async` jobs are not started on `queue`: they run on the Swift concurrency
/// executor, which on Linux is served by the same libdispatch pool, so a starved pool delays them too.
///
/// **Thread safety:** every method may be called from any thread, concurrently, including from inside a running job.
/// The bookkeeping is one lock; jobs are started, continuations resumed and tasks cancelled only after it is released,
/// so a job may submit further jobs or call `done` synchronously.
public final class ConcurrencyLimiter: Sendable {
    /// A handle to one submitted job, which can cancel it.
    ///
    /// ```swift
    /// let ticket = limiter.submit { done in work(); done() }
    /// if ticket.cancel() { print("it never started") }
    /// ```
    ///
    /// **Thread safety:** ``cancel()`` may be called from any thread, any number of times.
    public struct Ticket: Sendable {
        let limiter: ConcurrencyLimiter
        let id: UInt64

        /// Cancels the job: a queued job is removed and never starts; a running `async` job's task is cancelled
        /// (cooperatively, as `Task.cancel()` does); a running closure job and a finished job are not affected.
        /// Returns `true` if the job was still queued, so it will never start.
        ///
        /// ```swift
        /// ticket.cancel()
        /// ```
        ///
        /// **Thread safety:** may be called from any thread, at any time, more than once.
        @discardableResult
        public func cancel() -> Bool {
            limiter.cancel(id)
        }
    }

    /// The most jobs that run at once.
    public let maxConcurrent: Int
    private let queue: DispatchQueue
    private let state = LockedBox(State())

    /// Creates a limiter that runs at most `maxConcurrent` jobs at once and starts closure jobs on `queue`.
    ///
    /// ```swift
    /// let limiter = ConcurrencyLimiter(maxConcurrent: 4, queue: DispatchQueue(label: "jobs"))
    /// ```
    ///
    /// - Parameters:
    ///   - maxConcurrent: At least 1 (a precondition failure otherwise).
    ///   - queue: Where ``submit(_:)`` jobs are started, with `queue.async`. A serial queue runs the jobs' closures
    ///     one at a time (their `done` may still come later), so with a serial queue only jobs that start
    ///     asynchronous work overlap.
    ///
    /// **Thread safety:** the new limiter may be shared with any thread.
    public init(maxConcurrent: Int, queue: DispatchQueue = .global()) {
        precondition(maxConcurrent >= 1, "ConcurrencyLimiter: maxConcurrent must be at least 1, got \(maxConcurrent)")
        self.maxConcurrent = maxConcurrent
        self.queue = queue
    }

    /// The number of jobs holding a slot now (started and not yet finished). Informational: it may change as soon as
    /// it is read.
    ///
    /// ```swift
    /// print("\(limiter.runningCount) of \(limiter.maxConcurrent) busy")
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    public var runningCount: Int {
        state.withCriticalSection { $0.running.count }
    }

    /// The number of jobs waiting for a slot now (including callers suspended in ``run(isolation:_:)``).
    /// Informational: it may change as soon as it is read.
    ///
    /// ```swift
    /// if limiter.queuedCount > 100 { print("backlog") }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    public var queuedCount: Int {
        state.withCriticalSection { $0.queued.count }
    }

    /// Submits a job that calls `done` when it is finished; the job starts on the limiter's queue when a slot is free.
    ///
    /// ```swift
    /// limiter.submit { done in
    ///     upload(file) { _ in done() }
    /// }
    /// ```
    ///
    /// `done` must be called exactly once, from any thread, at any time (also synchronously inside `job`). A second
    /// call stops the program with a precondition failure naming the mistake; a missing call keeps the slot busy
    /// forever, as a missing `semaphore.signal()` would.
    ///
    /// **Thread safety:** may be called from any thread. `job` is started with `queue.async`, never on the calling
    /// thread and never with a lock held.
    @discardableResult
    public func submit(_ job: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void) -> Ticket {
        enqueue(.closure(job))
    }

    /// Submits an `async` job; when a slot is free it starts as a new `Task` with `priority`, and its slot is freed
    /// when it returns.
    ///
    /// ```swift
    /// limiter.submit(priority: .utility) {
    ///     await thumbnailer.render(photo)
    /// }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread. The task is created with no lock held. Cancelling the
    /// ``Ticket`` of a running job cancels its task; the job sees it through `Task.isCancelled`.
    @discardableResult
    public func submit(priority: TaskPriority? = nil, _ job: @escaping @Sendable () async -> Void) -> Ticket {
        enqueue(.task(priority, job))
    }

    /// Waits for a slot without blocking a thread, runs `operation` in the calling task, frees the slot when it
    /// returns or throws, and returns its result.
    ///
    /// ```swift
    /// let image = try await limiter.run { try await decode(data) }
    /// ```
    ///
    /// The caller waits in the same first-in-first-out queue as submitted jobs. Waiting is not cancellable: a task
    /// cancelled while it waits still gets its slot and runs `operation`, which can check `Task.isCancelled`.
    /// ``cancelAll()`` does not affect callers of `run`.
    ///
    /// **Thread safety:** may be called from any task; `operation` runs on the caller's isolation.
    public func run<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> T
    ) async rethrows -> T {
        let id = await withCheckedContinuation(isolation: isolation) {
            (continuation: CheckedContinuation<UInt64, Never>) in
            let immediate = state.withCriticalSection { state -> UInt64? in
                let id = state.makeID()
                if state.running.count < maxConcurrent {
                    state.running[id] = Running()
                    return id
                }
                state.enqueue(id, .waiter(continuation))
                return nil
            }
            if let id = immediate {
                continuation.resume(returning: id)
            }
        }
        defer { release(id) }
        return try await operation()
    }

    /// Cancels every job submitted with ``submit(_:)`` or ``submit(priority:_:)`` that has not started yet (they
    /// never start) and cancels the tasks of running `async` jobs. Callers waiting in ``run(isolation:_:)`` keep their
    /// place.
    ///
    /// ```swift
    /// limiter.cancelAll()
    /// ```
    ///
    /// **Thread safety:** may be called from any thread; jobs submitted after it returns run normally.
    public func cancelAll() {
        let (removed, tasks) = state.withCriticalSection { state -> ([Work], [Task<Void, Never>]) in
            var removed: [Work] = []
            for (id, work) in state.queued {
                if case .waiter = work { continue }
                removed.append(work)
                state.queued[id] = nil
            }
            state.dropOrderIfNothingQueued()
            var tasks: [Task<Void, Never>] = []
            for id in state.running.keys {
                state.running[id]!.cancelRequested = true
                if let task = state.running[id]!.task { tasks.append(task) }
            }
            return (removed, tasks)
        }
        // The removed closures (and whatever they captured) are released here, after unlocking.
        withExtendedLifetime(removed) {}
        CalloutCheck.assertNoLockHeld("ConcurrencyLimiter.cancelAll cancelling tasks")
        for task in tasks { task.cancel() }
    }

    // MARK: - Bookkeeping

    private enum Work: Sendable {
        case closure(@Sendable (_ done: @escaping @Sendable () -> Void) -> Void)
        case task(TaskPriority?, @Sendable () async -> Void)
        case waiter(CheckedContinuation<UInt64, Never>)
    }

    private struct Running {
        var task: Task<Void, Never>?
        var cancelRequested = false
    }

    private struct State {
        var nextID: UInt64 = 0
        var running: [UInt64: Running] = [:]
        // FIFO: ids in submission order from `head` on; a cancelled id stays in `order` but is gone from `queued`,
        // and is skipped when reached. `order` is compacted when the consumed prefix gets large.
        var queued: [UInt64: Work] = [:]
        var order: [UInt64] = []
        var head = 0

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }

        mutating func enqueue(_ id: UInt64, _ work: Work) {
            queued[id] = work
            order.append(id)
        }

        /// Cancelled ids linger in `order` until `dequeue` walks past them; when nothing is queued, none is needed.
        mutating func dropOrderIfNothingQueued() {
            if queued.isEmpty {
                order.removeAll(keepingCapacity: order.count <= 1_024)
                head = 0
            }
        }

        mutating func dequeue() -> (UInt64, Work)? {
            defer {
                if head > 64 && head * 2 > order.count {
                    order.removeFirst(head)
                    head = 0
                }
            }
            while head < order.count {
                let id = order[head]
                head += 1
                if let work = queued.removeValue(forKey: id) {
                    return (id, work)
                }
            }
            dropOrderIfNothingQueued()
            return nil
        }
    }

    private func enqueue(_ work: Work) -> Ticket {
        // Invariant: a job is queued only while all slots are busy, and every freed slot goes to the oldest queued
        // job (see `release`), so starting immediately when a slot is free never overtakes a queued job.
        let (id, startNow) = state.withCriticalSection { state -> (UInt64, Bool) in
            let id = state.makeID()
            if state.running.count < maxConcurrent {
                state.running[id] = Running()
                return (id, true)
            }
            state.enqueue(id, work)
            return (id, false)
        }
        if startNow {
            start(id, work)
        }
        return Ticket(limiter: self, id: id)
    }

    private func start(_ id: UInt64, _ work: Work) {
        CalloutCheck.assertNoLockHeld("ConcurrencyLimiter starting a job")
        switch work {
        case .closure(let job):
            let done: @Sendable () -> Void = { self.release(id) }
            queue.async { job(done) }
        case .task(let priority, let job):
            let task = Task(priority: priority) {
                await job()
                self.release(id)
            }
            // The task may already have finished (and released its slot); then there is nothing to record. If the
            // ticket was cancelled between the slot being granted and the handle being recorded, cancel now.
            let cancelNow = state.withCriticalSection { state -> Bool in
                guard state.running[id] != nil else { return false }
                state.running[id]!.task = task
                return state.running[id]!.cancelRequested
            }
            if cancelNow {
                CalloutCheck.assertNoLockHeld("ConcurrencyLimiter cancelling a task")
                task.cancel()
            }
        case .waiter(let continuation):
            continuation.resume(returning: id)
        }
    }

    private func release(_ id: UInt64) {
        let (released, next) = state.withCriticalSection { state -> (Running?, (UInt64, Work)?) in
            guard let released = state.running.removeValue(forKey: id) else { return (nil, nil) }
            guard let next = state.dequeue() else { return (released, nil) }
            state.running[next.0] = Running()
            return (released, next)
        }
        guard released != nil else {
            preconditionFailure(
                "ConcurrencyLimiter: done() was called more than once for the same job. Call done exactly once per job."
            )
        }
        if let (nextID, work) = next {
            start(nextID, work)
        }
    }

    private func cancel(_ id: UInt64) -> Bool {
        enum Action {
            case removed(Work)
            case cancelTask(Task<Void, Never>)
            case nothing
        }
        let action = state.withCriticalSection { state -> Action in
            if let work = state.queued.removeValue(forKey: id) {
                state.dropOrderIfNothingQueued()
                return .removed(work)
            }
            guard state.running[id] != nil else { return .nothing }
            state.running[id]!.cancelRequested = true
            return state.running[id]!.task.map { .cancelTask($0) } ?? .nothing
        }
        switch action {
        case .removed(let work):
            // Released here, after unlocking: the closure may capture objects with arbitrary deinit code.
            withExtendedLifetime(work) {}
            return true
        case .cancelTask(let task):
            CalloutCheck.assertNoLockHeld("ConcurrencyLimiter cancelling a task")
            task.cancel()
            return false
        case .nothing:
            return false
        }
    }
}
