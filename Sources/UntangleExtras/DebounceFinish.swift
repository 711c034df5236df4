import Untangle

/// What `debounce(for:scheduler:options:onFinish:)` does with a value still counting down when its upstream
/// finishes.
///
/// ```swift
/// let searches = queries.debounce(
///     for: .milliseconds(300), scheduler: DispatchQueue.main, onFinish: .deliverPendingValue)
/// ```
///
/// **Demand:** ``deliverPendingValue`` sends the value only once the subscriber has demand for it; the completion
/// follows it.
/// **Thread safety:** a value: any thread.
public enum DebounceFinish: Sendable, Hashable {
    /// Drop it and finish at once: Combine's (and the core `debounce(for:scheduler:options:)`'s) behaviour.
    case dropPendingValue
    /// Deliver it on the scheduler, then finish: RxSwift's `debounce(_:scheduler:)` behaviour. Without demand at
    /// that moment, the value and the completion wait for the subscriber's next request. A failure still drops it
    /// (RxSwift forwards an error at once).
    case deliverPendingValue
}
