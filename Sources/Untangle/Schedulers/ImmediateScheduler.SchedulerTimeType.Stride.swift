extension ImmediateScheduler.SchedulerTimeType {
    /// The increment by which the immediate scheduler counts time.
    ///
    /// A plain integer with no unit: literals and `init(_:)` store the value as is (a float literal is truncated),
    /// while the ``SchedulerTimeIntervalConvertible`` conversions (`.seconds(1)`, `.milliseconds(5)`, ...) all return
    /// zero, because no time ever passes on this scheduler. Both match Apple's `ImmediateScheduler`.
    ///
    /// ```swift
    /// typealias Stride = ImmediateScheduler.SchedulerTimeType.Stride
    /// let s: Stride = 14      // Stride(14)
    /// let z = Stride.seconds(3)  // Stride(0)
    /// ```
    ///
    /// **Thread safety:** a value type; use it from any thread.
    public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
        SchedulerTimeIntervalConvertible, Sendable
    {
        /// The type used when evaluating floating-point literals.
        public typealias FloatLiteralType = Double

        /// The type used when evaluating integer literals.
        public typealias IntegerLiteralType = Int

        /// The type used for expressing the stride's magnitude.
        public typealias Magnitude = Int

        /// The value of this time interval (signed, as in Apple's API).
        public var magnitude: Int

        /// Creates an immediate scheduler time interval from the given time interval.
        public init(_ value: Int) {
            magnitude = value
        }

        /// Creates an immediate scheduler time interval from an integer seconds value.
        public init(integerLiteral value: Int) {
            self.init(value)
        }

        /// Creates an immediate scheduler time interval from a floating-point seconds value (truncated).
        public init(floatLiteral value: Double) {
            self.init(Int(value))
        }

        /// Creates an immediate scheduler time interval from a binary integer type, or `nil` if `source` does not
        /// fit in an `Int`.
        public init?<T: BinaryInteger>(exactly source: T) {
            guard let value = Int(exactly: source) else { return nil }
            self.init(value)
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

        /// Zero: no time passes on the immediate scheduler.
        public static func seconds(_ s: Int) -> Stride { Stride(0) }
        /// Zero: no time passes on the immediate scheduler.
        public static func seconds(_ s: Double) -> Stride { Stride(0) }
        /// Zero: no time passes on the immediate scheduler.
        public static func milliseconds(_ ms: Int) -> Stride { Stride(0) }
        /// Zero: no time passes on the immediate scheduler.
        public static func microseconds(_ us: Int) -> Stride { Stride(0) }
        /// Zero: no time passes on the immediate scheduler.
        public static func nanoseconds(_ ns: Int) -> Stride { Stride(0) }
    }
}
