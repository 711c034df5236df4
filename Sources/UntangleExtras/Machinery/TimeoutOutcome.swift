/// The failure type inside `timeout(_:scheduler:options:fallback:)`'s composition: either the upstream's own
/// failure or the timeout, so that only the timeout switches to the fallback.
///
/// ```swift
/// upstream.mapError(TimeoutOutcome.failure).timeout(1, scheduler: s, customError: { .timedOut })
/// ```
///
/// **Thread safety:** a value.
enum TimeoutOutcome<Failure: Error>: Error {
    case failure(Failure)
    case timedOut
}
