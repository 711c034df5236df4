/// A protocol indicating that an activity or action supports cancellation.
///
/// ```swift
/// let cancellable: Cancellable = subject.sink { print($0) }
/// cancellable.cancel()   // stops delivery and frees the subscription
/// ```
///
/// **Demand:** cancelling ends demand: no further values are delivered once `cancel()` has returned.
/// **Thread safety:** every Untangle type that conforms allows `cancel()` from any thread, concurrently with
/// everything else, any number of times (the second and later calls do nothing).
public protocol Cancellable {
    /// Cancels the activity. Frees up any allocated resources and stops side effects such as timers or network calls.
    func cancel()
}

extension Cancellable {
    /// Stores this cancellable in the given collection, as an ``AnyCancellable``.
    ///
    /// The collection is not thread-safe: mutate it from one thread only. For a container that many threads may
    /// store into, use `CancelBag` from UntangleExtras.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        AnyCancellable(self).store(in: &collection)
    }

    /// Stores this cancellable in the given set, as an ``AnyCancellable``.
    ///
    /// The set is not thread-safe: mutate it from one thread only. For a container that many threads may store into,
    /// use `CancelBag` from UntangleExtras.
    public func store(in set: inout Set<AnyCancellable>) {
        AnyCancellable(self).store(in: &set)
    }
}
