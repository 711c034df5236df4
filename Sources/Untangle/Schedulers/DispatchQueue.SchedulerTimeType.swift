import Dispatch

extension DispatchQueue {
    /// The scheduler time type used by the dispatch queue: a `DispatchTime` on the uptime clock.
    ///
    /// Distances are in nanoseconds of uptime. A distance too large for `Int`, forwards or backwards (so any distance
    /// to or from `DispatchTime.distantFuture` other than from it to itself), is `.nanoseconds(.max)`, as in Combine;
    /// advancing by `.nanoseconds(.max)` gives `distantFuture`. It encodes as a single unsigned integer, the uptime in
    /// nanoseconds.
    ///
    /// ```swift
    /// let start = DispatchQueue.main.now
    /// let later = start.advanced(by: .milliseconds(250))
    /// // start.distance(to: later) == .milliseconds(250)
    /// ```
    ///
    /// **Thread safety:** a value type; use it from any thread.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time represented by this type.
        public var dispatchTime: DispatchTime

        /// Creates a dispatch queue time type instance.
        public init(_ time: DispatchTime) {
            dispatchTime = time
        }

        /// Creates a value by decoding the uptime in nanoseconds from a single-value container.
        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            dispatchTime = DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self))
        }

        /// Encodes the uptime in nanoseconds into a single-value container.
        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        /// Returns the distance to another dispatch queue time, in nanoseconds, clamped to `Int`'s range.
        public func distance(to other: SchedulerTimeType) -> Stride {
            let start = dispatchTime.uptimeNanoseconds
            let end = other.dispatchTime.uptimeNanoseconds
            if start == end { return .nanoseconds(0) }
            // As Apple's: a distance too large for `Int` either way (any distance to or from `distantFuture`
            // among them) is `.max`, even backwards.
            if end > start {
                let forwards = end - start
                return .nanoseconds(forwards > UInt64(Int.max) ? .max : Int(forwards))
            }
            let backwards = start - end
            return .nanoseconds(backwards > UInt64(Int.max) ? .max : -Int(backwards))
        }

        /// Returns the time advanced by `n`; advancing by `.nanoseconds(.max)` gives `DispatchTime.distantFuture`.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            if n.magnitude == .max { return SchedulerTimeType(.distantFuture) }
            return SchedulerTimeType(dispatchTime + n.timeInterval)
        }

        /// Whether two times are the same instant.
        public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime == rhs.dispatchTime
        }

        /// Orders times chronologically.
        public static func < (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime < rhs.dispatchTime
        }

        /// Hashes the time.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(dispatchTime.rawValue)
        }
    }
}
