import Dispatch

extension DispatchQueue.SchedulerTimeType {
    /// A distance between two dispatch queue times, stored in nanoseconds.
    ///
    /// Literals and `init?(exactly:)` are in **seconds** (`let s: Stride = 2` is two seconds, `0.5` is half a second);
    /// ``magnitude`` is the signed number of **nanoseconds** (Apple's API: `magnitude` is not an absolute value here).
    /// The ``SchedulerTimeIntervalConvertible`` conversions clamp to `Int`'s range instead of overflowing.
    /// `+` and `-` add nanoseconds (and trap on overflow, like `Int`). `*` multiplies in seconds, so that
    /// `stride * 2` (2 being a seconds literal) doubles `stride`: the product of two sub-second strides rounds toward
    /// zero, as Apple's does. It encodes as `{"_nanoseconds": nanoseconds}`, as Apple's does.
    ///
    /// ```swift
    /// typealias Stride = DispatchQueue.SchedulerTimeType.Stride
    /// let a: Stride = 1.5                     // magnitude 1_500_000_000
    /// let b = Stride.milliseconds(5) * 2      // 10 ms
    /// let c = Stride(.microseconds(3))        // magnitude 3_000
    /// ```
    ///
    /// **Thread safety:** a value type; use it from any thread.
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
        Hashable, Codable, Sendable
    {
        /// Floating-point literals are seconds.
        public typealias FloatLiteralType = Double

        /// Integer literals are seconds.
        public typealias IntegerLiteralType = Int

        /// The type of ``magnitude``: signed nanoseconds.
        public typealias Magnitude = Int

        /// The value of this time interval in nanoseconds (signed).
        public var magnitude: Int

        // Apple's Stride stores (and so encodes) its nanoseconds under this key.
        private enum CodingKeys: String, CodingKey {
            case magnitude = "_nanoseconds"
        }

        /// A `DispatchTimeInterval` created with the value of this type in nanoseconds.
        public var timeInterval: DispatchTimeInterval {
            .nanoseconds(magnitude)
        }

        private init(nanoseconds: Int) {
            magnitude = nanoseconds
        }

        /// Creates a dispatch queue time interval from the given dispatch time interval; `.never` becomes
        /// `.nanoseconds(.max)`, and out-of-range values clamp to `Int`'s range.
        public init(_ timeInterval: DispatchTimeInterval) {
            switch timeInterval {
            case .seconds(let s): self = .seconds(s)
            case .milliseconds(let ms): self = .milliseconds(ms)
            case .microseconds(let us): self = .microseconds(us)
            case .nanoseconds(let ns): self = .nanoseconds(ns)
            case .never: self = .nanoseconds(.max)
            @unknown default: self = .nanoseconds(.max)
            }
        }

        /// Creates a dispatch queue time interval from a floating-point seconds value.
        public init(floatLiteral value: Double) {
            self = .seconds(value)
        }

        /// Creates a dispatch queue time interval from an integer seconds value.
        public init(integerLiteral value: Int) {
            self = .seconds(value)
        }

        /// Creates a dispatch queue time interval from a binary integer number of seconds, or `nil` if `source` does
        /// not fit in an `Int`.
        public init?<T: BinaryInteger>(exactly source: T) {
            guard let seconds = Int(exactly: source) else { return nil }
            self = .seconds(seconds)
        }

        /// Orders strides by magnitude.
        public static func < (lhs: Stride, rhs: Stride) -> Bool {
            lhs.magnitude < rhs.magnitude
        }

        /// Multiplies in seconds: `(a * b).magnitude == a.magnitude * b.magnitude / 1_000_000_000`, rounded toward
        /// zero and clamped to `Int`'s range.
        public static func * (lhs: Stride, rhs: Stride) -> Stride {
            let approximate = Double(lhs.magnitude) * Double(rhs.magnitude) / 1e9
            // Double keeps 53 bits: this only decides whether the exact quotient can overflow, with a margin of
            // about 0.2% of Int.max so that `dividingFullWidth` below never traps.
            if approximate >= 9.2e18 { return Stride(nanoseconds: .max) }
            if approximate <= -9.2e18 { return Stride(nanoseconds: .min) }
            let product = lhs.magnitude.multipliedFullWidth(by: rhs.magnitude)
            return Stride(nanoseconds: Int.nanosecondsPerSecond.dividingFullWidth(product).quotient)
        }

        /// Adds two strides.
        public static func + (lhs: Stride, rhs: Stride) -> Stride {
            Stride(nanoseconds: lhs.magnitude + rhs.magnitude)
        }

        /// Subtracts one stride from another.
        public static func - (lhs: Stride, rhs: Stride) -> Stride {
            Stride(nanoseconds: lhs.magnitude - rhs.magnitude)
        }

        /// Multiplies a stride in place.
        public static func *= (lhs: inout Stride, rhs: Stride) {
            lhs = lhs * rhs
        }

        /// Adds to a stride in place.
        public static func += (lhs: inout Stride, rhs: Stride) {
            lhs = lhs + rhs
        }

        /// Subtracts from a stride in place.
        public static func -= (lhs: inout Stride, rhs: Stride) {
            lhs = lhs - rhs
        }

        /// A stride of the given number of seconds.
        public static func seconds(_ s: Double) -> Stride {
            let nanoseconds = s * 1e9
            // `Double(Int.max)` rounds up to 2^63, which does not fit: compare with `>=`.
            if nanoseconds >= Double(Int.max) { return Stride(nanoseconds: .max) }
            if nanoseconds <= Double(Int.min) { return Stride(nanoseconds: .min) }
            if nanoseconds.isNaN { return Stride(nanoseconds: 0) }
            return Stride(nanoseconds: Int(nanoseconds))
        }

        /// A stride of the given number of seconds.
        public static func seconds(_ s: Int) -> Stride {
            Stride(nanoseconds: s.clampedProduct(Int.nanosecondsPerSecond))
        }

        /// A stride of the given number of milliseconds.
        public static func milliseconds(_ ms: Int) -> Stride {
            Stride(nanoseconds: ms.clampedProduct(1_000_000))
        }

        /// A stride of the given number of microseconds.
        public static func microseconds(_ us: Int) -> Stride {
            Stride(nanoseconds: us.clampedProduct(1_000))
        }

        /// A stride of the given number of nanoseconds.
        public static func nanoseconds(_ ns: Int) -> Stride {
            Stride(nanoseconds: ns)
        }
    }
}

extension Int {
    fileprivate static let nanosecondsPerSecond = 1_000_000_000

    /// `self * factor`, clamped to `Int.min...Int.max` instead of trapping.
    fileprivate func clampedProduct(_ factor: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: factor)
        guard overflow else { return product }
        return (self < 0) == (factor < 0) ? .max : .min
    }
}
