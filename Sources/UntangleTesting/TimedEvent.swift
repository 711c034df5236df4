import Untangle

/// A value or completion planned at an offset on a virtual timeline: the input of ``ColdTestPublisher`` (offset
/// from each subscription) and ``HotTestPublisher`` (offset from the publisher's creation).
///
/// ```swift
/// let input: [TimedEvent<Int, Never>] = [.value(1, at: .seconds(1)), .value(2, at: .seconds(2)), .finished(at: .seconds(3))]
/// let publisher = scheduler.createColdPublisher(input)
/// ```
///
/// Several events at the same offset happen in array order. A timeline may not contain `.subscription` (it is not
/// something a publisher sends): the publishers stop the program with a message if it does.
///
/// **Thread safety:** a value type; safe to pass between threads when its payload is.
public struct TimedEvent<Value, Failure: Error> {
    /// When, relative to the timeline's origin. Negative offsets are "before the origin" (hot publishers skip them).
    public var offset: TestScheduler.SchedulerTimeType.Stride
    /// What happens then: a value or a completion.
    public var event: TestEvent<Value, Failure>

    /// Creates a timed event.
    public init(_ event: TestEvent<Value, Failure>, at offset: TestScheduler.SchedulerTimeType.Stride) {
        self.event = event
        self.offset = offset
    }

    /// A value at `offset`.
    public static func value(_ value: Value, at offset: TestScheduler.SchedulerTimeType.Stride) -> TimedEvent {
        TimedEvent(.value(value), at: offset)
    }

    /// A successful completion at `offset`.
    public static func finished(at offset: TestScheduler.SchedulerTimeType.Stride) -> TimedEvent {
        TimedEvent(.completion(.finished), at: offset)
    }

    /// A failure at `offset`.
    public static func failure(_ error: Failure, at offset: TestScheduler.SchedulerTimeType.Stride) -> TimedEvent {
        TimedEvent(.completion(.failure(error)), at: offset)
    }
}

extension TimedEvent: Equatable where Value: Equatable, Failure: Equatable {}

extension TimedEvent: Sendable where Value: Sendable, Failure: Sendable {}

extension TimedEvent: CustomStringConvertible {
    /// `value(1) at +1000000000ns`.
    public var description: String { "\(event) at +\(offset.magnitude)ns" }
}

extension Array {
    /// The timeline sorted by offset, keeping array order among equal offsets, checked for `.subscription`.
    func sortedTimeline<Value, Failure>(for owner: String) -> [TimedEvent<Value, Failure>]
    where Element == TimedEvent<Value, Failure> {
        for event in self {
            if case .subscription = event.event {
                preconditionFailure("\(owner): a timeline cannot contain .subscription, only values and completions")
            }
        }
        return enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
    }
}
