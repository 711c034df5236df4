import Foundation
import UntangleSync

/// An `Operation` whose work finishes later: subclasses start work in ``main()`` and call ``finish()`` when it is
/// done, from any thread. `OperationQueue` then starts dependent operations and frees the slot.
///
/// ```swift
/// final class DownloadOperation: AsyncOperation, @unchecked Sendable {
///     let url: URL
///     private let data = LockedBox<Data?>(tracking: nil)
///     init(url: URL) { self.url = url }
///     override func main() {
///         fetch(url) { result in
///             self.data.withLock { $0 = try? result.get() }
///             self.finish()
///         }
///     }
/// }
/// let download = DownloadOperation(url: url)
/// let show = BlockOperation { print("downloaded") }
/// show.addDependency(download)
/// queue.addOperations([download, show], waitUntilFinished: false)
/// ```
///
/// What this class does for you, and the traps of the hand-written version it avoids:
/// - `isExecuting` and `isFinished` come from one state kept in a `LockedBox`, so they are never read torn
///   and never both `true`; the usual `var _isExecuting`/`_isFinished` pair is a data race.
/// - The `willChangeValue(forKey:)`/`didChangeValue(forKey:)` notifications for `"isExecuting"` and `"isFinished"`,
///   which `OperationQueue` depends on, are posted for every transition, and always *outside* the lock: observers
///   (the queue itself, which then starts dependents) run arbitrary code and may read the properties again.
///   A transition is claimed under the lock first, so concurrent or repeated ``finish()`` calls post the
///   notifications once.
/// - An operation cancelled before it starts finishes at once without calling ``main()``.
///
/// On Linux this was verified against swift-corelibs-foundation's `OperationQueue` (see `AsyncOperationTests`): an
/// operation that depends on an `AsyncOperation` starts only after ``finish()``, and the queue's slot is freed by
/// ``finish()``, with no `waitUntilAllOperationsAreFinished` needed. There, `willChangeValue(forKey:)` does nothing
/// and `didChangeValue(forKey: "isFinished")` is what makes the queue read `isFinished` and release dependents
/// (checked: with that one call removed from ``finish()``, the dependency test times out).
///
/// **Thread safety:** ``finish()`` and `cancel()` may be called from any thread, any number of times; `isExecuting`
/// and `isFinished` may be read from any thread. ``start()`` is called once, by the queue (or by you if the
/// operation is not in a queue); calling it again is a precondition failure, as in Foundation.
open class AsyncOperation: Operation, @unchecked Sendable {
    private enum State {
        /// Not started.
        case ready
        /// `start()` claimed the operation; still reported as neither executing nor finished.
        case starting
        /// Reported as executing.
        case executing
        /// `finish()` claimed the transition; still reported as executing until the notifications are posted.
        case finishing
        /// Reported as finished.
        case finished
    }

    private let state = LockedBox(tracking: State.ready)

    /// Creates an operation in the ready state.
    ///
    /// ```swift
    /// let operation = MyAsyncOperation()
    /// ```
    ///
    /// **Thread safety:** may be called from any thread.
    public override init() {
        super.init()
    }

    /// Always `true`: the operation is finished by ``finish()``, not by ``main()`` returning.
    ///
    /// ```swift
    /// assert(operation.isAsynchronous)
    /// ```
    ///
    /// **Thread safety:** may be read from any thread.
    open override var isAsynchronous: Bool { true }

    /// Whether ``main()`` has been called and ``finish()`` has not yet completed.
    ///
    /// ```swift
    /// if operation.isExecuting { print("running") }
    /// ```
    ///
    /// **Thread safety:** may be read from any thread.
    open override var isExecuting: Bool {
        state.withCriticalSection { $0 == .executing || $0 == .finishing }
    }

    /// Whether the operation has finished (by ``finish()``, or by being cancelled before it started).
    ///
    /// ```swift
    /// if operation.isFinished { print("done") }
    /// ```
    ///
    /// **Thread safety:** may be read from any thread.
    open override var isFinished: Bool {
        state.withCriticalSection { $0 == .finished }
    }

    /// Starts the operation: if it was cancelled, finishes it without calling ``main()``; otherwise moves it to
    /// executing (posting the `"isExecuting"` change) and calls ``main()``. Do not override; override ``main()``.
    ///
    /// ```swift
    /// operation.start()  // only when the operation is not in a queue
    /// ```
    ///
    /// **Thread safety:** called once, from any thread; no lock is held while notifications are posted or while
    /// ``main()`` runs. A second call is a precondition failure.
    open override func start() {
        let claimed = state.withCriticalSection { state -> Bool in
            guard state == .ready else { return false }
            state = .starting
            return true
        }
        precondition(claimed, "AsyncOperation: start() was called on an operation that had already been started.")
        CalloutCheck.assertNoLockHeld("AsyncOperation.start posting KVO notifications")
        if isCancelled {
            willChangeValue(forKey: "isFinished")
            state.withCriticalSection { $0 = .finished }
            didChangeValue(forKey: "isFinished")
            return
        }
        willChangeValue(forKey: "isExecuting")
        state.withCriticalSection { $0 = .executing }
        didChangeValue(forKey: "isExecuting")
        main()
    }

    /// The work: override it to start your asynchronous work and call ``finish()`` when it is done (from any thread,
    /// also synchronously from here). Do not call `super.main()`: the default implementation finishes at once.
    ///
    /// ```swift
    /// override func main() {
    ///     timer.schedule { self.finish() }
    /// }
    /// ```
    ///
    /// Check `isCancelled` where it makes sense; a `cancel()` override can stop the work and call ``finish()``.
    ///
    /// **Thread safety:** called once, by ``start()``, with no lock held.
    open override func main() {
        finish()
    }

    /// Marks the operation finished, posting the `"isExecuting"` and `"isFinished"` changes, so that the queue frees
    /// its slot and starts dependent operations. Calls after the first, and calls before ``main()`` was called,
    /// do nothing.
    ///
    /// ```swift
    /// session.dataTask(with: url) { _, _, _ in self.finish() }.resume()
    /// ```
    ///
    /// **Thread safety:** may be called from any thread, any number of times, concurrently; exactly one call
    /// performs the transition. No lock is held while the notifications are posted.
    public final func finish() {
        // Claim the transition first: only the call that moves `.executing` to `.finishing` posts notifications, so
        // two racing finish() calls cannot both post didChange("isFinished") (the queue would count the operation
        // as finished twice). The values observers read flip only between the will/did pairs.
        let claimed = state.withCriticalSection { state -> Bool in
            guard state == .executing else { return false }
            state = .finishing
            return true
        }
        guard claimed else { return }
        CalloutCheck.assertNoLockHeld("AsyncOperation.finish posting KVO notifications")
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        state.withCriticalSection { $0 = .finished }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
