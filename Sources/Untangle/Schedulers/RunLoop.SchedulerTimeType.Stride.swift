import Foundation

extension RunLoop.SchedulerTimeType {
    /// The interval by which run loop times advance: a `TimeInterval` in seconds.
    ///
    /// Literals, `init(_:)`, `init?(exactly:)` and `magnitude` are all seconds (`magnitude` is signed, as in Apple's
    /// API); arithmetic is plain `Double` arithmetic on seconds. It encodes as `{"magnitude": seconds}`.
    ///
    /// ```swift
    /// typealias Stride = RunLoop.SchedulerTimeType.Stride
    /// let a: Stride = 2                   // 2 seconds
    /// let b = Stride.milliseconds(5) * 2  // 0.01 seconds
    /// ```
    ///
    /// **Demand:** not applicable.
    /// **Thread safety:** a value type; use it from any thread.
    public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
        SchedulerTimeIntervalConvertible, Sendable
    {
        /// Floating-point literals are seconds.
        public typealias FloatLiteralType = TimeInterval

        /// Integer literals are seconds.
        public typealias IntegerLiteralType = TimeInterval

        /// The type of `magnitude`: signed seconds.
        public typealias Magnitude = TimeInterval

        /// The value of this time interval in seconds (signed).
        public var magnitude: TimeInterval

        /// The value of this time interval in seconds.
        public var timeInterval: TimeInterval {
            magnitude
        }

        /// Creates a stride of `timeInterval` seconds.
        public init(_ timeInterval: TimeInterval) {
            magnitude = timeInterval
        }

        /// Creates a stride from an integer literal, in seconds.
        public init(integerLiteral value: TimeInterval) {
            magnitude = value
        }

        /// Creates a stride from a floating-point literal, in seconds.
        public init(floatLiteral value: TimeInterval) {
            magnitude = value
        }

        /// Creates a stride of `source` seconds, or `nil` if `source` is not exactly representable as a
        /// `TimeInterval`.
        public init?<T: BinaryInteger>(exactly source: T) {
            guard let value = TimeInterval(exactly: source) else { return nil }
            magnitude = value
        }

        /// Orders strides by magnitude.
        public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
        /// Multiplies two strides.
        public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }
        /// Adds two strides.
        public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }
        /// Subtracts one stride from another.
        public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }
        /// Multiplies a stride in place.
        public static func *= (lhs: inout Stride, rhs: Stride) { lhs.magnitude *= rhs.magnitude }
        /// Adds to a stride in place.
        public static func += (lhs: inout Stride, rhs: Stride) { lhs.magnitude += rhs.magnitude }
        /// Subtracts from a stride in place.
        public static func -= (lhs: inout Stride, rhs: Stride) { lhs.magnitude -= rhs.magnitude }

        /// A stride of the given number of seconds.
        public static func seconds(_ s: Int) -> Stride { Stride(TimeInterval(s)) }
        /// A stride of the given number of seconds.
        public static func seconds(_ s: Double) -> Stride { Stride(s) }
        /// A stride of the given number of milliseconds.
        public static func milliseconds(_ ms: Int) -> Stride { Stride(TimeInterval(ms) / 1_000) }
        /// A stride of the given number of microseconds.
        public static func microseconds(_ us: Int) -> Stride { Stride(TimeInterval(us) / 1_000_000) }
        /// A stride of the given number of nanoseconds.
        public static func nanoseconds(_ ns: Int) -> Stride { Stride(TimeInterval(ns) / 1_000_000_000) }
    }
}
