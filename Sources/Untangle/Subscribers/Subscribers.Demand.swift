extension Subscribers {
    /// A requested number of items, sent to a publisher from a subscriber through the subscription.
    ///
    /// A demand is either a finite count (`.max(n)`, with `.none` meaning zero) or `.unlimited`. Arithmetic saturates:
    /// anything added to `.unlimited` (or multiplied by it) stays `.unlimited`, sums that would overflow become
    /// `.unlimited`, and a subtraction that would go below zero gives `.max(0)`, as Apple documents for `-=`.
    ///
    /// ```swift
    /// var demand = Subscribers.Demand.max(2)
    /// demand += 3          // .max(5)
    /// demand -= 10         // .max(0): never negative
    /// demand > 0           // false
    /// ```
    ///
    /// **Demand:** this is the demand: a subscriber returns it from `receive(_:)` or passes it to
    /// `Subscription.request(_:)`; demands accumulate, they never replace each other.
    /// **Thread safety:** a value type; safe to pass between threads.
    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible, Sendable {
        // Finite demands are stored as their count; `.unlimited` is one past the largest finite count, so every
        // comparison is a plain integer comparison.
        @usableFromInline
        internal let rawValue: UInt

        @inlinable
        internal init(rawValue: UInt) {
            self.rawValue = min(rawValue, Demand.unlimitedRawValue)
        }

        // Performance: computed and `@inlinable` rather than `static let`: a global constant is read through an
        // addressor with a lazy-initialization check (about 17 instructions per use, several uses per value in the
        // emitter); these fold to an immediate.
        @inlinable
        internal static var unlimitedRawValue: UInt { UInt(Int.max) + 1 }

        /// A request for as many values as the publisher can produce.
        @inlinable
        public static var unlimited: Demand { Demand(rawValue: unlimitedRawValue) }

        /// A request for no elements from the publisher.
        ///
        /// Equivalent to `.max(0)`.
        @inlinable
        public static var none: Demand { Demand(rawValue: 0) }

        /// Creates a demand for the given maximum number of elements.
        ///
        /// - Parameter value: The maximum number of elements. A negative value is a programming error and stops
        ///   the program, as it does in Apple's Combine.
        @inlinable
        public static func max(_ value: Int) -> Demand {
            precondition(value >= 0, "Subscribers.Demand.max(_:) needs a non-negative count, got \(value)")
            return Demand(rawValue: UInt(value))
        }

        /// The number of requested values, or `nil` for `.unlimited`.
        @inlinable
        public var max: Int? {
            rawValue == Demand.unlimitedRawValue ? nil : Int(rawValue)
        }

        /// A textual representation: `unlimited` or `max(n)`.
        public var description: String {
            self == .unlimited ? "unlimited" : "max(\(rawValue))"
        }

        // MARK: Addition

        /// Adds two demands; anything plus `.unlimited`, or a sum past `Int.max`, is `.unlimited`.
        @inlinable
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            let (sum, overflow) = lhs.rawValue.addingReportingOverflow(rhs.rawValue)
            return overflow ? .unlimited : Demand(rawValue: sum)
        }

        /// Adds one demand to another in place.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Demand) {
            lhs = lhs + rhs
        }

        /// Adds an integer to a demand. Adding to `.unlimited` gives `.unlimited`; a negative integer subtracts.
        @inlinable
        public static func + (lhs: Demand, rhs: Int) -> Demand {
            rhs < 0 ? lhs - Demand(rawValue: rhs.magnitude) : lhs + Demand(rawValue: UInt(rhs))
        }

        /// Adds an integer to a demand in place.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Int) {
            lhs = lhs + rhs
        }

        // MARK: Multiplication

        /// Multiplies a demand by an integer. `.unlimited` stays `.unlimited`; a product past `Int.max` is
        /// `.unlimited`; a negative factor is a programming error.
        @inlinable
        public static func * (lhs: Demand, rhs: Int) -> Demand {
            precondition(rhs >= 0, "Subscribers.Demand cannot be multiplied by a negative number (\(rhs))")
            if lhs == .unlimited { return .unlimited }
            let (product, overflow) = lhs.rawValue.multipliedReportingOverflow(by: UInt(rhs))
            return overflow ? .unlimited : Demand(rawValue: product)
        }

        /// Multiplies a demand by an integer in place.
        @inlinable
        public static func *= (lhs: inout Demand, rhs: Int) {
            lhs = lhs * rhs
        }

        // MARK: Subtraction

        /// Subtracts one demand from another. `.unlimited` minus anything is `.unlimited`; a finite demand minus
        /// `.unlimited`, or any result below zero, is `.max(0)`.
        @inlinable
        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            if lhs == .unlimited { return .unlimited }
            if rhs == .unlimited { return .none }
            let (difference, overflow) = lhs.rawValue.subtractingReportingOverflow(rhs.rawValue)
            return overflow ? .none : Demand(rawValue: difference)
        }

        /// Subtracts one demand from another in place.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Demand) {
            lhs = lhs - rhs
        }

        /// Subtracts an integer from a demand: `.unlimited` stays `.unlimited`, a result below zero is `.max(0)`,
        /// and a negative integer adds.
        @inlinable
        public static func - (lhs: Demand, rhs: Int) -> Demand {
            // As in Combine: the difference is computed as an Int; a result that overflows is `.none`.
            if lhs == .unlimited { return .unlimited }
            let (difference, overflow) = Int(lhs.rawValue).subtractingReportingOverflow(rhs)
            return overflow || difference < 0 ? .none : Demand(rawValue: UInt(difference))
        }

        /// Subtracts an integer from a demand in place.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Int) {
            lhs = lhs - rhs
        }

        // MARK: Comparison with Demand

        /// Orders demands by count, with `.unlimited` greater than every finite demand.
        @inlinable
        public static func < (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Two demands are equal if both are `.unlimited` or both have the same count.
        @inlinable
        public static func == (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue == rhs.rawValue }

        // MARK: Comparison with Int
        // `.unlimited` compares greater than every Int, and never equal to one; a negative Int is less than every
        // demand.

        /// Whether a demand is greater than an integer (`.unlimited` is greater than every integer).
        @inlinable
        public static func > (lhs: Demand, rhs: Int) -> Bool {
            rhs < 0 ? true : lhs.rawValue > UInt(rhs)
        }

        /// Whether a demand is greater than or equal to an integer.
        @inlinable
        public static func >= (lhs: Demand, rhs: Int) -> Bool {
            rhs < 0 ? true : lhs.rawValue >= UInt(rhs)
        }

        /// Whether an integer is greater than a demand (never, for `.unlimited`).
        @inlinable
        public static func > (lhs: Int, rhs: Demand) -> Bool {
            lhs < 0 ? false : UInt(lhs) > rhs.rawValue
        }

        /// Whether an integer is greater than or equal to a demand.
        @inlinable
        public static func >= (lhs: Int, rhs: Demand) -> Bool {
            lhs < 0 ? false : UInt(lhs) >= rhs.rawValue
        }

        /// Whether a demand is less than an integer (never, for `.unlimited`).
        @inlinable
        public static func < (lhs: Demand, rhs: Int) -> Bool {
            rhs < 0 ? false : lhs.rawValue < UInt(rhs)
        }

        /// Whether a demand is less than or equal to an integer.
        @inlinable
        public static func <= (lhs: Demand, rhs: Int) -> Bool {
            rhs < 0 ? false : lhs.rawValue <= UInt(rhs)
        }

        /// Whether an integer is less than a demand (always, for `.unlimited`).
        @inlinable
        public static func < (lhs: Int, rhs: Demand) -> Bool {
            lhs < 0 ? true : UInt(lhs) < rhs.rawValue
        }

        /// Whether an integer is less than or equal to a demand.
        @inlinable
        public static func <= (lhs: Int, rhs: Demand) -> Bool {
            lhs < 0 ? true : UInt(lhs) <= rhs.rawValue
        }

        /// Whether a demand equals an integer (`.unlimited` equals no integer).
        @inlinable
        public static func == (lhs: Demand, rhs: Int) -> Bool {
            rhs < 0 ? false : lhs.rawValue == UInt(rhs)
        }

        /// Whether a demand differs from an integer.
        @inlinable
        public static func != (lhs: Demand, rhs: Int) -> Bool { !(lhs == rhs) }

        /// Whether an integer equals a demand.
        @inlinable
        public static func == (lhs: Int, rhs: Demand) -> Bool { rhs == lhs }

        /// Whether an integer differs from a demand.
        @inlinable
        public static func != (lhs: Int, rhs: Demand) -> Bool { !(rhs == lhs) }

        // MARK: Codable

        /// Decodes a demand encoded by ``encode(to:)`` (a single unsigned integer; `Int.max + 1` is `.unlimited`).
        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            // A count beyond the largest finite one decodes as `.unlimited` (as in Combine); a negative one throws.
            self.init(rawValue: try container.decode(UInt.self))
        }

        /// Encodes the demand as a single unsigned integer.
        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

extension Subscribers.Demand {
    /// Stops the program with a clear message if a subscriber requests `.none`: like Apple's Combine, Untangle's
    /// subscriptions treat `request(.none)` as a contract violation (Reactive Streams rule 3.9).
    @inlinable
    package func preconditionNonZero(file: StaticString = #fileID, line: UInt = #line) {
        precondition(
            rawValue > 0, "Subscription.request(_:) needs a demand greater than zero (got .none)", file: file,
            line: line)
    }
}
