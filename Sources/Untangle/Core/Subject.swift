/// A publisher that exposes a method for outside callers to publish elements.
///
/// ```swift
/// let subject = PassthroughSubject<Int, Never>()
/// subject.send(1)
/// subject.send(completion: .finished)
/// ```
///
/// **Demand:** each subscriber of an Untangle subject gets a value only if it has outstanding demand when the value
/// is sent (see each subject for what happens otherwise).
/// **Thread safety:** Untangle's subjects accept `send` from any thread, concurrently; each subscriber still receives
/// one signal at a time (see ThreadSafety.md).
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Sends a value to the subscriber.
    func send(_ value: Output)

    /// Sends a completion signal to the subscriber.
    func send(completion: Subscribers.Completion<Failure>)

    /// Provides this subject an opportunity to establish demand for any new upstream subscriptions.
    func send(subscription: Subscription)
}

extension Subject where Output == Void {
    /// Sends a void value to the subscriber.
    public func send() {
        send(())
    }
}
