import Untangle

/// What a ``ShareReplayCore`` sees of one subscriber's ``ShareReplayConduit``: its number in the share, and where to
/// push live values and the completion.
///
/// The entry points are closures, formed in ``ShareReplayConduit``'s `@inlinable` initializer, which the client
/// module specializes for the concrete subscriber type; they capture nothing (the receiver is passed in), so they
/// cost no allocation, and the per-value path (the core's loop over its receivers, the conduit's queue and its
/// subscriber) runs specialized, with no type-metadata lookup. A protocol existential or an overridden method
/// would dispatch to the code compiled once, unspecialized, in UntangleExtras.
///
/// ```swift
/// for receiver in receivers { receiver.push(value) }
/// ```
///
/// **Demand:** the conduit applies its subscriber's demand; pushing never blocks.
/// **Thread safety:** immutable; both entry points may be called from any thread (the core calls them from the
/// upstream's serialized signals, outside its own lock).
@usableFromInline
class ShareReplayReceiver<Output, Failure: Error>: @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable.

    /// The subscriber's number in its share (how it leaves).
    @usableFromInline final let id: Int
    /// Pushes a live value to the receiver passed as the first argument.
    @usableFromInline final let pushEntry: (ShareReplayReceiver, Output) -> Void
    /// Gives the upstream's completion to the receiver passed as the first argument.
    @usableFromInline final let finishEntry: (ShareReplayReceiver, Subscribers.Completion<Failure>) -> Void

    @inlinable
    init(
        id: Int, push: @escaping (ShareReplayReceiver, Output) -> Void,
        finish: @escaping (ShareReplayReceiver, Subscribers.Completion<Failure>) -> Void
    ) {
        self.id = id
        pushEntry = push
        finishEntry = finish
    }

    /// A live value.
    @inlinable
    final func push(_ value: Output) {
        pushEntry(self, value)
    }

    /// The upstream's completion.
    @inlinable
    final func finish(_ completion: Subscribers.Completion<Failure>) {
        finishEntry(self, completion)
    }
}
