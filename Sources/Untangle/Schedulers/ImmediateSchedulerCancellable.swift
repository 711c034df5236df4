/// The `Cancellable` returned by ``ImmediateScheduler``'s repeating `schedule`: the action already ran, once, so
/// there is nothing to cancel (Apple returns `Subscriptions.empty`).
///
/// ```swift
/// let nothing = ImmediateSchedulerCancellable()
/// nothing.cancel()
/// ```
///
/// **Demand:** not applicable.
/// **Thread safety:** stateless; `cancel()` may be called from any thread.
final class ImmediateSchedulerCancellable: Cancellable, Sendable {
    func cancel() {}
}
