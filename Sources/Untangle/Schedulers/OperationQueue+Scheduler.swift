import Dispatch
import Foundation
import UntangleSync

/// `OperationQueue` as a ``Scheduler``: actions become `BlockOperation`s added to the queue.
///
/// Delayed and repeating actions wait on a dispatch timer (on a global queue) and are added to the operation queue
/// when due, so they run with the queue's own concurrency limit, suspension and underlying queue.
///
/// ```swift
/// let queue = OperationQueue()
/// queue.schedule { print("soon") }
/// queue.schedule(after: queue.now.advanced(by: .seconds(1))) { print("later") }
/// let ticks = queue.schedule(after: queue.now, interval: .seconds(1)) { print("tick") }
/// ticks.cancel()
/// ```
///
/// **Thread safety:** every method may be called from any thread. Actions run as operations of the queue (one at a
/// time only if `maxConcurrentOperationCount == 1`). The repeating form's `Cancellable` may be cancelled from any
/// thread, any number of times; after `cancel()` returns no new run of the action starts (runs already added to the
/// queue check before starting). Dropping that `Cancellable` cancels too.
extension OperationQueue: Scheduler {
    /// The current moment: `Date()`.
    public var now: SchedulerTimeType {
        SchedulerTimeType(Date())
    }

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride {
        SchedulerTimeType.Stride(0.0)
    }

    /// Adds the action to the queue as a `BlockOperation`.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = ScheduledAction(action)
        addOperation(BlockOperation { action.run() })
    }

    /// Adds the action to the queue at once, as an operation that becomes ready once `date` has passed (as in
    /// Combine). The date is turned into a delay from now when this method is called (later changes of the wall
    /// clock are not followed); the tolerance is not used.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let action = ScheduledAction(action)
        addOperation(DelayedActionOperation(due: date.date) { action.run() })
    }

    /// Runs the action at `date`, then every `interval`: each run is an operation added to the queue (the first one
    /// at once, each next one just before the previous one runs the action) that becomes ready when it is due.
    /// Returns an `AnyCancellable`, as Combine; the tolerance is not used.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        let chain = RepeatingOperationChain(
            queue: self, interval: interval.timeInterval, action: ScheduledAction(action))
        let cancellable = RepeatingActionCancellable()
        chain.gate = cancellable.gate
        cancellable.setStop { chain.stop() }
        chain.add(due: date.date)
        return AnyCancellable(cancellable)
    }
}

/// An operation that is not ready until its due date, then runs its action once; cancelling it drops the action.
///
/// ```swift
/// queue.addOperation(DelayedActionOperation(due: Date() + 1) { print("a second later") })
/// ```
///
/// **Thread safety:** `cancel()` and the readiness change may happen on any thread; the action runs once at most,
/// with no lock held (the readiness notification to the queue is also sent after unlocking).
private final class DelayedActionOperation: Operation, Cancellable, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is in `state`, a LockedBox.
    private struct State {
        var due = false
        var action: ScheduledAction?
    }

    private let state: LockedBox<State>

    init(due date: Date, _ action: @escaping () -> Void) {
        let delay = date.timeIntervalSinceNow
        state = LockedBox(tracking: State(due: delay <= 0, action: ScheduledAction(action)))
        super.init()
        guard delay > 0 else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.becomeDue()
        }
    }

    // The operation queue learns of the change through the `isReady` notifications, sent with no lock held.
    private func becomeDue() {
        willChangeValue(forKey: "isReady")
        state.withCriticalSection { $0.due = true }
        didChangeValue(forKey: "isReady")
    }

    override var isReady: Bool {
        // A cancelled operation is ready, so that the queue can finish it without waiting for its date.
        (state.withCriticalSection { $0.due } || isCancelled) && super.isReady
    }

    override func main() {
        guard !isCancelled, let action = state.withCriticalSection({ $0.action.take() }) else { return }
        action.run()
    }

    override func cancel() {
        let dropped = state.withCriticalSection { $0.action.take() }
        withExtendedLifetime(dropped) {}
        willChangeValue(forKey: "isReady")
        super.cancel()
        didChangeValue(forKey: "isReady")
    }
}

/// The operations of one repeating `schedule(after:interval:)` on an operation queue: one pending operation at a
/// time, each adding the next (due one interval after its own due date) before it runs the action.
///
/// **Thread safety:** `stop()` may be called from any thread; after it returns no new run of the action starts (an
/// operation that already passed the gate finishes its run).
private final class RepeatingOperationChain: @unchecked Sendable {
    // @unchecked Sendable: `pending` is a LockedBox; `gate` is set once before the first operation is added; the
    // queue is used only through its thread-safe `addOperation`.
    private let queue: OperationQueue
    private let interval: TimeInterval
    private let action: ScheduledAction
    var gate: RepeatingActionCancellable.Gate?
    private let pending = LockedBox<Operation?>(tracking: nil)

    init(queue: OperationQueue, interval: TimeInterval, action: ScheduledAction) {
        self.queue = queue
        self.interval = interval
        self.action = action
    }

    func add(due date: Date) {
        let operation = DelayedActionOperation(due: date) { [self] in
            guard gate?.isOpen ?? false else { return }
            add(due: date + interval)
            guard gate?.isOpen ?? false else { return }
            action.run()
        }
        pending.withCriticalSection { $0 = operation }
        queue.addOperation(operation)
        // A stop() that came between the gate check and the line above did not see this operation: cancel it here.
        if !(gate?.isOpen ?? false) { operation.cancel() }
    }

    func stop() {
        let operation = pending.withCriticalSection { $0.take() }
        operation?.cancel()
    }
}
