import Dispatch
import Foundation

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
/// **Demand:** not applicable.
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

    /// Adds the action to the queue as an operation.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = ScheduledAction(action)
        addOperation { action.run() }
    }

    /// Adds the action to the queue once `date` has passed. The date is turned into a delay from now when this
    /// method is called (later changes of the wall clock are not followed); the tolerance is not used.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let action = ScheduledAction(action)
        let delay = date.date.timeIntervalSinceNow
        guard delay > 0 else {
            addOperation { action.run() }
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
            self.addOperation { action.run() }
        }
    }

    /// Adds the action to the queue at `date`, then every `interval`, from a dispatch timer with `tolerance` as
    /// leeway.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        let action = ScheduledAction(action)
        let cancellable = RepeatingActionCancellable()
        let gate = cancellable.gate
        let timer = DispatchSource.makeTimerSource(queue: .global())
        // Two checks of the gate: the timer's handler does not add an operation once cancelled, and an operation
        // added just before `cancel()` does not run the action if it starts after it.
        timer.setEventHandler {
            guard gate.isOpen else { return }
            self.addOperation {
                if gate.isOpen { action.run() }
            }
        }
        let leeway = DispatchTimeInterval.nanoseconds(Int(max(0, min(tolerance.timeInterval, 1e9)) * 1e9))
        timer.schedule(
            deadline: .now() + max(0, date.date.timeIntervalSinceNow),
            repeating: interval.timeInterval,
            leeway: leeway
        )
        cancellable.setStop { timer.cancel() }
        timer.resume()
        return cancellable
    }
}
