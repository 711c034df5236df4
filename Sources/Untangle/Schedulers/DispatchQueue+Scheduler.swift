import Dispatch

/// `DispatchQueue` as a ``Scheduler``: `async`, `asyncAfter`, and a `DispatchSourceTimer` for repeating actions.
///
/// ```swift
/// let queue = DispatchQueue(label: "work")
/// queue.schedule { print("soon, on queue") }
/// queue.schedule(after: queue.now.advanced(by: .milliseconds(100))) { print("later, on queue") }
/// let ticks = queue.schedule(after: queue.now, interval: .seconds(1)) { print("tick") }
/// ticks.cancel()
/// ```
///
/// **Thread safety:** every method may be called from any thread. Actions run on the queue (serially if the queue is
/// serial). The repeating form returns an `AnyCancellable` (as Combine) whose `cancel()` is idempotent and may be
/// called from any thread; after it returns no new run of the action starts (a run already under way finishes).
/// Dropping that `Cancellable` cancels too.
extension DispatchQueue: Scheduler {
    /// The current moment: `DispatchTime.now()`.
    public var now: SchedulerTimeType {
        SchedulerTimeType(.now())
    }

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride {
        .nanoseconds(0)
    }

    /// Performs the action at the next possible opportunity, with `async(group:qos:flags:execute:)`.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let options = options ?? SchedulerOptions()
        let action = ScheduledAction(action)
        async(group: options.group, qos: options.qos, flags: options.flags) { action.run() }
    }

    /// Performs the action at some time after `date`, with `asyncAfter(deadline:qos:flags:execute:)`. The tolerance is
    /// not used (dispatch has no leeway for one-shot work items) and neither is `options.group`.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let options = options ?? SchedulerOptions()
        let action = ScheduledAction(action)
        asyncAfter(deadline: date.dispatchTime, qos: options.qos, flags: options.flags) { action.run() }
    }

    /// Performs the action at `date`, then every `interval`, on a `DispatchSourceTimer` targeting this queue, with
    /// `tolerance` as the timer's leeway. `options.group` is not used.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        let cancellable = RepeatingActionCancellable()
        let action = cancellable.gating(action)
        let timer = DispatchSource.makeTimerSource(queue: self)
        // The handler holds the gated action, not the cancellable: the cancellable stays owned by the caller only,
        // and its deinit cancels. The gate also covers the window in which dispatch has already dequeued a firing
        // when `cancel()` runs on another thread.
        timer.setEventHandler(qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) { action.run() }
        let repeating: DispatchTimeInterval = interval.magnitude == .max ? .never : interval.timeInterval
        timer.schedule(
            deadline: date.dispatchTime,
            repeating: repeating,
            leeway: .nanoseconds(max(0, tolerance.magnitude))
        )
        // DispatchSource.cancel() is itself thread-safe; the cancellable makes sure it is called once, outside any
        // library lock, and releases the timer (and with it the user's action) after unlocking.
        cancellable.setStop { timer.cancel() }
        timer.resume()
        return AnyCancellable(cancellable)
    }
}
