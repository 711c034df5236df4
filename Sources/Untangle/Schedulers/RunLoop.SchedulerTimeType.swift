import Foundation

extension RunLoop {
    /// The scheduler time type used by the run loop: a `Date`.
    ///
    /// Distances are `TimeInterval` seconds. It encodes as `{"date": ...}` with the encoder's date strategy.
    ///
    /// ```swift
    /// let start = RunLoop.SchedulerTimeType(Date())
    /// let later = start.advanced(by: .milliseconds(250))
    /// // start.distance(to: later) == .milliseconds(250)
    /// ```
    ///
    /// **Thread safety:** a value type; use it from any thread.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The date represented by this type.
        public var date: Date

        /// Initializes a run loop scheduler time with the given date.
        public init(_ date: Date) {
            self.date = date
        }

        /// Returns the distance to another run loop scheduler time, in seconds.
        public func distance(to other: SchedulerTimeType) -> Stride {
            Stride(other.date.timeIntervalSince(date))
        }

        /// Returns the time advanced by `n` seconds.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(date.addingTimeInterval(n.timeInterval))
        }
    }
}
