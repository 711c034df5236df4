/// A variable shared by an operator's per-value closures (an accumulator, a count, the last value), without the
/// run-time exclusivity check that Swift applies to a `var` captured by an escaping closure.
///
/// ```swift
/// let count = OperatorVariable(0)
/// let onValue: (Int) -> Void = { _ in count.value += 1 }
/// ```
///
/// The check (`swift_beginAccess`, about 40 instructions per access) could never fire for these variables: each
/// access is instantaneous (no user code runs inside it), and the closures that touch one variable are the upstream
/// signal path of one subscription, which the contract serializes.
///
/// **Thread safety:** none of its own: use it only from one subscription's serialized signal path.
@usableFromInline
package final class OperatorVariable<Value>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline package var value: Value

    @inlinable
    package init(_ value: Value) {
        self.value = value
    }

    /// Returns the value and leaves `replacement` in its place: a reducer's result handed downstream, so the
    /// variable no longer keeps the values it gathered.
    @inlinable
    package func take(leaving replacement: Value) -> Value {
        defer { value = replacement }
        return value
    }
}
