import UntangleSync

/// A unique identifier for identifying publisher streams.
///
/// ```swift
/// let a = CombineIdentifier(), b = CombineIdentifier()
/// a == b   // false
/// ```
///
/// **Thread safety:** `init()` may be called from any thread; identifiers are values.
public struct CombineIdentifier: Hashable, CustomStringConvertible, Sendable {
    private let rawValue: UInt64

    private static let counter = LockedBox<UInt64>(0)

    /// Creates a new identifier, different from every other one created by `init()` in this process.
    public init() {
        // Identifiers made from objects are their addresses, which are aligned and so even; counter values are
        // shifted and tagged with the low bit, so the two kinds never collide.
        let next = CombineIdentifier.counter.withCriticalSection { value -> UInt64 in
            value &+= 1
            return value
        }
        rawValue = (next << 1) | 1
    }

    /// Creates an identifier for an object: equal for the same object while it lives.
    public init(_ obj: AnyObject) {
        rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj)))
    }

    /// A hexadecimal rendering of the identifier.
    public var description: String {
        "0x" + String(rawValue, radix: 16)
    }
}

/// A protocol for uniquely identifying publisher streams.
///
/// Classes get a default identity-based implementation; subscribers that are structs must provide one.
///
/// ```swift
/// final class MySubscriber: Subscriber { /* combineIdentifier comes for free */ }
/// ```
///
/// **Thread safety:** the identifier must not change over the subscriber's life, so reading it is thread-safe.
public protocol CustomCombineIdentifierConvertible {
    /// A unique identifier for publisher streams.
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    /// The identity of this object.
    public var combineIdentifier: CombineIdentifier {
        CombineIdentifier(self)
    }
}
