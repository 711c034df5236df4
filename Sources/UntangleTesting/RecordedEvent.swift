import Untangle

/// A ``TestEvent`` with where and when it arrived: the thread, the virtual time (when the recorder was given a
/// ``TestScheduler``), and the nesting depth (1 for a top-level call, 2 when delivered from inside another
/// `receive` on the same thread).
///
/// ```swift
/// let record = subscriber.records[1]
/// print(record.event, record.thread, record.time as Any)
/// ```
///
/// **Thread safety:** a value type; safe to pass between threads when its payload is.
public struct RecordedEvent<Value, Failure: Error> {
    /// What arrived.
    public var event: TestEvent<Value, Failure>
    /// The thread it arrived on.
    public var thread: RecordedThread
    /// The scheduler's `now` when it arrived, or `nil` without a scheduler.
    public var time: TestScheduler.SchedulerTimeType?
    /// How many of the subscriber's `receive` calls were running on this thread, this one included.
    public var depth: Int

    /// Creates a record.
    public init(
        event: TestEvent<Value, Failure>, thread: RecordedThread, time: TestScheduler.SchedulerTimeType?, depth: Int = 1
    ) {
        self.event = event
        self.thread = thread
        self.time = time
        self.depth = depth
    }
}

extension RecordedEvent: Sendable where Value: Sendable, Failure: Sendable {}

extension RecordedEvent: CustomStringConvertible {
    /// The event, the thread, and the time if any: `value(1) on thread #2 at 1000000001`.
    public var description: String {
        var text = "\(event) on \(thread)"
        if let time { text += " at \(time.dispatchTime.uptimeNanoseconds)" }
        return text
    }
}
