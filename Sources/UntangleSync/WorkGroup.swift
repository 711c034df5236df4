import Dispatch

/// Fan-out, fan-in: start any number of tasks, then get all their results once, when the last one has finished.
///
/// This replaces `DispatchGroup` with `enter()`/`leave()`, whose count is kept by hand: an extra `leave()` crashes,
/// a missing one means `notify` never fires, and an `enter()` placed after the work starts lets `notify` fire early.
/// Here the count *is* the tasks you added. Each task gets its own completion, accepted exactly once; its result
/// (value or error) is stored under the group's lock, so no second queue or lock is needed to collect results.
///
/// ```swift
/// let group = WorkGroup<Data>()
/// for url in urls {
///     group.add { complete in
///         fetch(url) { result in complete(result) }
///     }
/// }
/// group.add { try await fetchManifest() }
/// group.notify(queue: .main) { results in
///     // one Result per added task, in the order they were added
///     show(results.compactMap { try? $0.get() })
/// }
/// // Or, from async code, without blocking a thread:
/// let results = await group.wait()
/// ```
///
/// Rules, all checked:
/// - ``notify(queue:_:)`` and ``wait(isolation:)`` *seal* the group: they mean "these are all the tasks". Calling
///   ``add(_:)`` or ``add(priority:_:)`` after either one is a precondition failure (the results may already have
///   been delivered, and a group that can grow after `notify` is the early-`notify` race again). Add every task
///   first; a task that fans out further uses a group of its own.
/// - A task's completion called a second time is a precondition failure (the equivalent of an unbalanced
///   `leave()`, but with a message naming the task). A completion never called keeps the group from finishing,
///   as with `DispatchGroup`.
/// - Every `notify` handler runs exactly once and every `wait()` returns exactly once, after all added tasks have
///   completed, also when no task was added. `notify` may be called more than once.
///
/// **Thread safety:** every method may be called from any thread, concurrently; completions may be called from any
/// thread. Results are recorded under one lock; handlers are dispatched and continuations resumed after unlocking.
public final class WorkGroup<Success: Sendable>: Sendable {
    /// The results, one per added task, in the order the tasks were added.
    public typealias Results = [Result<Success, any Error>]

    private let state = LockedBox(State())

    /// Creates an empty group.
    ///
    /// ```swift
    /// let group = WorkGroup<Void>()
    /// ```
    ///
    /// **Thread safety:** the new group may be shared with any thread.
    public init() {}

    /// Adds a callback-style task: calls `task` at once, on the calling thread, with a completion it must call
    /// exactly once with the task's result.
    ///
    /// ```swift
    /// group.add { complete in
    ///     api.load(id) { value, error in
    ///         complete(error.map { .failure($0) } ?? .success(value!))
    ///     }
    /// }
    /// ```
    ///
    /// The task is registered before `task` runs, so a completion called synchronously inside `task` is fine.
    /// Calling `add` after ``notify(queue:_:)`` or ``wait(isolation:)`` is a precondition failure; calling a
    /// completion twice is a precondition failure.
    ///
    /// **Thread safety:** may be called from any thread; `task` runs on the calling thread with no lock held; the
    /// completion may be called from any thread.
    public func add(_ task: (_ complete: @escaping @Sendable (Result<Success, any Error>) -> Void) -> Void) {
        let index = register()
        CalloutCheck.assertNoLockHeld("WorkGroup.add calling the task")
        task { result in self.complete(index, with: result) }
    }

    /// Adds an `async` task, started at once as a new `Task` with `priority`; its return value or thrown error is its
    /// result.
    ///
    /// ```swift
    /// group.add { try await loadProfile() }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread. Calling it after ``notify(queue:_:)`` or
    /// ``wait(isolation:)`` is a precondition failure.
    public func add(priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async throws -> Success) {
        let index = register()
        Task(priority: priority) {
            let result: Result<Success, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            self.complete(index, with: result)
        }
    }

    /// Seals the group and runs `handler` once on `queue`, with every task's result, when all added tasks have
    /// completed (at once, asynchronously on `queue`, if they already have or if none was added).
    ///
    /// ```swift
    /// group.notify(queue: .main) { results in
    ///     let failures = results.filter { if case .failure = $0 { true } else { false } }
    ///     print("\(failures.count) failed")
    /// }
    /// ```
    ///
    /// **Thread safety:** may be called from any thread, more than once; each handler runs exactly once, dispatched
    /// with `queue.async`, never on the calling thread and never with a lock held. No ``add(_:)`` is allowed after it.
    public func notify(queue: DispatchQueue, _ handler: @escaping @Sendable (Results) -> Void) {
        let ready = state.withCriticalSection { state -> Results? in
            state.sealed = true
            if let results = state.finishIfDone() { return results }
            state.observers.append(.notify(queue, handler))
            return nil
        }
        if let results = ready {
            CalloutCheck.assertNoLockHeld("WorkGroup.notify dispatching its handler")
            queue.async { handler(results) }
        }
    }

    /// Seals the group and suspends (without blocking a thread) until every added task has completed; returns their
    /// results in the order the tasks were added.
    ///
    /// ```swift
    /// let results = await group.wait()
    /// ```
    ///
    /// Not cancellable: a cancelled caller still waits for the tasks (cancel the tasks themselves).
    ///
    /// **Thread safety:** may be called from any task, more than once. No ``add(_:)`` is allowed after it.
    public func wait(isolation: isolated (any Actor)? = #isolation) async -> Results {
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Results, Never>) in
            let ready = state.withCriticalSection { state -> Results? in
                state.sealed = true
                if let results = state.finishIfDone() { return results }
                state.observers.append(.waiter(continuation))
                return nil
            }
            if let results = ready {
                continuation.resume(returning: results)
            }
        }
    }

    // MARK: - Bookkeeping

    private enum Observer {
        case notify(DispatchQueue, @Sendable (Results) -> Void)
        case waiter(CheckedContinuation<Results, Never>)
    }

    private struct State {
        var slots: [Result<Success, any Error>?] = []
        var pending = 0
        var sealed = false
        var results: Results?
        var observers: [Observer] = []

        /// The final results if the group is sealed and every task has completed (computed once), else `nil`.
        mutating func finishIfDone() -> Results? {
            if let results { return results }
            guard sealed, pending == 0 else { return nil }
            let finished = slots.map { $0! }
            slots = []
            results = finished
            return finished
        }
    }

    private enum CompletionAction {
        case duplicate
        case recorded
        case finished(Results, [Observer])
    }

    private func register() -> Int {
        let index = state.withCriticalSection { state -> Int? in
            guard !state.sealed else { return nil }
            state.slots.append(nil)
            state.pending += 1
            return state.slots.count - 1
        }
        guard let index else {
            preconditionFailure(
                "WorkGroup: add(_:) was called after notify(queue:_:) or wait() sealed the group. "
                    + "Add every task before asking for the results."
            )
        }
        return index
    }

    private func complete(_ index: Int, with result: Result<Success, any Error>) {
        let action = state.withCriticalSection { state -> CompletionAction in
            guard state.results == nil, state.slots[index] == nil else { return .duplicate }
            state.slots[index] = result
            state.pending -= 1
            guard let results = state.finishIfDone() else { return .recorded }
            let observers = state.observers
            state.observers = []
            return .finished(results, observers)
        }
        switch action {
        case .duplicate:
            preconditionFailure(
                "WorkGroup: the completion of task #\(index) was called more than once. "
                    + "Each added task must complete exactly once."
            )
        case .recorded:
            break
        case .finished(let results, let observers):
            CalloutCheck.assertNoLockHeld("WorkGroup delivering results")
            for observer in observers {
                switch observer {
                case .notify(let queue, let handler):
                    queue.async { handler(results) }
                case .waiter(let continuation):
                    continuation.resume(returning: results)
                }
            }
        }
    }
}
