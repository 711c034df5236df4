/// The failure a trait conversion (`asSingle()`, `asMaybe()`, `asCompletable()`) reports when its upstream breaks
/// the trait's promise.
///
/// ```swift
/// let single = [1, 2].publisher.asSingle()       // fails with TraitViolation.moreThanOneValue
/// let empty = Empty<Int, Never>().asSingle()     // fails with TraitViolation.noValue
/// ```
///
/// **Thread safety:** a value.
public enum TraitViolation: Error, Equatable, Hashable, Sendable {
    /// The upstream finished without a value where one was required (`asSingle()`).
    case noValue
    /// The upstream sent a second value where at most one was allowed (`asSingle()`, `asMaybe()`); the upstream is
    /// cancelled.
    case moreThanOneValue
    /// The upstream sent a value where none was allowed (`asCompletable()`); the upstream is cancelled.
    case unexpectedValue
}
