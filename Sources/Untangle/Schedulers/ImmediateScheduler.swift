/// A scheduler for performing synchronous actions.
///
/// You can only use this scheduler for immediate actions. If you schedule an action after a date, the scheduler
/// ignores the date and performs it immediately; a repeating action runs once, immediately, and the returned
/// `Cancellable` does nothing.
///
/// ```swift
/// var ran = false
/// ImmediateScheduler.shared.schedule { ran = true }
/// // ran == true
/// ```
///
/// **Thread safety:** stateless; call it from any thread. The action runs synchronously on the calling thread, before
/// `schedule` returns.
public struct ImmediateScheduler: Scheduler, Sendable {
    /// A type that defines options accepted by the immediate scheduler: there are none.
    public typealias SchedulerOptions = Never

    /// The shared instance of the immediate scheduler.
    public static let shared = ImmediateScheduler()

    private init() {}

    /// The immediate scheduler's definition of the current moment in time (always the same value).
    public var now: SchedulerTimeType { SchedulerTimeType() }

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }

    /// Performs the action immediately, on the calling thread.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        ScheduledAction(action).run()
    }

    /// Performs the action immediately, ignoring `date` and `tolerance`.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        ScheduledAction(action).run()
    }

    /// Performs the action once, immediately, ignoring `date`, `interval` and `tolerance`; returns
    /// `Subscriptions.empty` (as Combine), since there is nothing left to cancel.
    @discardableResult
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        ScheduledAction(action).run()
        return Subscriptions.empty
    }
}
