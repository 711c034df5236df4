import Foundation

/// `RunLoop` as a ``Scheduler``: `perform(_:)` for immediate actions, `Timer`s in the `.default` mode otherwise.
///
/// Actions run on the run loop's thread, one at a time, while that thread runs the run loop in the default mode
/// (`RunLoop.main` runs it for you in an app; a thread of your own must call `run(mode:before:)`).
///
/// ```swift
/// let loop = RunLoop.main
/// loop.schedule { print("soon, on the main thread") }
/// loop.schedule(after: loop.now.advanced(by: .seconds(1))) { print("later") }
/// let ticks = loop.schedule(after: loop.now, interval: .seconds(1)) { print("tick") }
/// ticks.cancel()
/// ```
///
/// **Thread safety:** every method may be called from any thread. The repeating form's `Cancellable` may be cancelled
/// from any thread, any number of times: it closes a gate the timer checks before each run and invalidates the
/// timer. After `cancel()` returns no new run of the action starts. Dropping that `Cancellable` cancels too.
extension RunLoop: Scheduler {
    /// The current moment: `Date()`.
    public var now: SchedulerTimeType {
        SchedulerTimeType(Date())
    }

    /// The minimum tolerance allowed by the scheduler: zero.
    public var minimumTolerance: SchedulerTimeType.Stride {
        SchedulerTimeType.Stride(0.0)
    }

    /// Performs the action on the run loop's next pass, with `perform(_:)`.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let action = ScheduledAction(action)
        perform { action.run() }
        #if !canImport(Darwin)
            // swift-corelibs-foundation's `perform` queues the block (CFRunLoopPerformBlock) without waking the run
            // loop, so a loop sleeping until its next timer would not see it. Adding a timer that is already due re-arms
            // the run loop's timer and wakes it; the loop then runs queued blocks on that pass.
            add(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, forMode: .default)
        #endif
    }

    /// Performs the action from a one-shot `Timer` firing at `date`, added in the `.default` mode, with `tolerance`
    /// as the timer's tolerance.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let action = ScheduledAction(action)
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in action.run() }
        timer.tolerance = max(0, tolerance.timeInterval)
        add(timer, forMode: .default)
    }

    /// Performs the action from a repeating `Timer` first firing at `date`, then every `interval`, added in the
    /// `.default` mode, with `tolerance` as the timer's tolerance.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        let cancellable = RepeatingActionCancellable()
        let action = cancellable.gating(action)
        let timer = Timer(fire: date.date, interval: interval.timeInterval, repeats: true) { _ in action.run() }
        timer.tolerance = max(0, tolerance.timeInterval)
        // `Timer.invalidate()` is documented for the installing thread, but the run-loop timer underneath
        // (CFRunLoopTimerInvalidate) takes the timer's and the run loop's locks and may be called from any thread.
        // The gate closes first anyway, so a firing that races with `cancel()` does not run the action.
        cancellable.setStop { timer.invalidate() }
        add(timer, forMode: .default)
        return cancellable
    }
}
