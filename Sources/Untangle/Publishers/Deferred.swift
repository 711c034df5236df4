/// A publisher that awaits subscription before running the supplied closure to create a publisher for the new
/// subscriber.
///
/// ```swift
/// let now = Deferred { Just(Date()) }   // each subscriber sees the time it subscribed
/// ```
///
/// **Demand:** whatever the created publisher does.
/// **Thread safety:** may be subscribed to from any thread; the closure runs on the subscribing thread, once per
/// subscription, with no library lock held (so it must itself be safe to run concurrently if you subscribe
/// concurrently).
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = DeferredPublisher.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = DeferredPublisher.Failure

    /// The closure to execute when this deferred publisher receives a subscription.
    public let createPublisher: () -> DeferredPublisher

    /// Creates a deferred publisher.
    public init(createPublisher: @escaping () -> DeferredPublisher) {
        self.createPublisher = createPublisher
    }

    /// Creates the publisher and attaches the subscriber to it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        createPublisher().subscribe(subscriber)
    }
}
