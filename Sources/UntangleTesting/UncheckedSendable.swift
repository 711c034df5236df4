/// Carries a value the verifier hands to its own threads. The verifier's documentation tells users which of their
/// closures run on other threads; the value itself is never mutated through this box.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
