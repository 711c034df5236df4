import Untangle

/// What a ``ShareReplayCore`` sees of one subscriber's ``ShareReplayConduit``: a place to push live values and the
/// completion.
///
/// ```swift
/// for receiver in receivers { receiver.push(value) }
/// ```
///
/// **Demand:** the conduit applies its subscriber's demand; pushing never blocks.
/// **Thread safety:** both methods may be called from any thread (the core calls them from the upstream's
/// serialized signals, outside its own lock).
protocol ShareReplayReceiver<Output, Failure>: AnyObject {
    associatedtype Output
    associatedtype Failure: Error

    /// A live value.
    func push(_ value: Output)
    /// The upstream's completion.
    func finish(_ completion: Subscribers.Completion<Failure>)
}
