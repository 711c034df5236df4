/// A protocol that defines when and how to execute a closure.
///
/// A scheduler runs an action as soon as possible, after a date, or repeatedly. Each scheduler keeps time in its own
/// `SchedulerTimeType`; because its `Stride` conforms to ``SchedulerTimeIntervalConvertible``, delays can always be
/// written as `.milliseconds(500)`. Options (`SchedulerOptions`) control scheduler-specific details such as the
/// quality of service of a dispatch queue.
///
/// ```swift
/// func ping(on scheduler: some Scheduler) {
///     scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { print("ping") }
/// }
/// ping(on: DispatchQueue.main)
/// ```
///
/// **Thread safety:** every Untangle scheduler may be called from any thread, concurrently. Where and how actions run
/// (serially or not) is the scheduler's own: a serial `DispatchQueue` runs them one at a time, a concurrent one may
/// not. Schedulers never run a user action while holding a library lock.
public protocol Scheduler<SchedulerTimeType> {
    /// Describes an instant in time for this scheduler.
    associatedtype SchedulerTimeType: Strideable where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible

    /// A type that defines options accepted by the scheduler.
    ///
    /// This type is freely definable by each `Scheduler`. Typically, operations that take a `Scheduler` parameter
    /// will also take `SchedulerOptions`.
    associatedtype SchedulerOptions

    /// This scheduler's definition of the current moment in time.
    var now: SchedulerTimeType { get }

    /// The minimum tolerance allowed by the scheduler.
    var minimumTolerance: SchedulerTimeType.Stride { get }

    /// Performs the action at the next possible opportunity.
    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)

    /// Performs the action at some time after the specified date.
    func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    )

    /// Performs the action at some time after the specified date, at the specified frequency, optionally taking into
    /// account tolerance if possible.
    ///
    /// The returned value stops the repetition when cancelled. Like Apple's `AnyCancellable`, the values Untangle's
    /// schedulers return also cancel when they are deinitialized: keep the value for as long as the action should
    /// repeat.
    func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> Cancellable
}

extension Scheduler {
    /// Performs the action at some time after the specified date, using the scheduler's minimum tolerance.
    ///
    /// ```swift
    /// DispatchQueue.main.schedule(after: DispatchQueue.main.now.advanced(by: .seconds(1))) { print("later") }
    /// ```
    ///
    /// **Thread safety:** as the scheduler's `schedule(after:tolerance:options:_:)`.
    public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
        schedule(after: date, tolerance: minimumTolerance, options: nil, action)
    }

    /// Performs the action at the next possible opportunity, without options.
    ///
    /// ```swift
    /// DispatchQueue.main.schedule { print("soon") }
    /// ```
    ///
    /// **Thread safety:** as the scheduler's `schedule(options:_:)`.
    public func schedule(_ action: @escaping () -> Void) {
        schedule(options: nil, action)
    }

    /// Performs the action at some time after the specified date, at the specified tolerance, without options.
    ///
    /// ```swift
    /// let queue = DispatchQueue.main
    /// queue.schedule(after: queue.now.advanced(by: .seconds(1)), tolerance: .milliseconds(10)) { print("later") }
    /// ```
    ///
    /// **Thread safety:** as the scheduler's `schedule(after:tolerance:options:_:)`.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) {
        schedule(after: date, tolerance: tolerance, options: nil, action)
    }

    /// Performs the action at some time after the specified date, at the specified frequency, taking into account
    /// tolerance if possible, without options.
    ///
    /// ```swift
    /// let queue = DispatchQueue.main
    /// let ticks = queue.schedule(after: queue.now, interval: .seconds(1), tolerance: .milliseconds(10)) { print("tick") }
    /// ```
    ///
    /// **Thread safety:** as the scheduler's `schedule(after:interval:tolerance:options:_:)`.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
    }

    /// Performs the action at some time after the specified date, at the specified frequency, using the scheduler's
    /// minimum tolerance and no options.
    ///
    /// ```swift
    /// let queue = DispatchQueue.main
    /// let ticks = queue.schedule(after: queue.now, interval: .seconds(1)) { print("tick") }
    /// ```
    ///
    /// **Thread safety:** as the scheduler's `schedule(after:interval:tolerance:options:_:)`.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) -> Cancellable {
        schedule(after: date, interval: interval, tolerance: minimumTolerance, options: nil, action)
    }
}
