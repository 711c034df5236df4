import UntangleSync

extension Publisher where Failure == Never {
    /// Republishes elements received from a publisher, by assigning them to a property marked as a publisher.
    ///
    /// Each value is set on the `@Published` property as if assigned in code (announced on `objectWillChange`,
    /// published to `$property`). The subscription lives as long as the property's storage: no `AnyCancellable` to
    /// keep, no reference cycle with the object, and it is cancelled when the object goes away.
    ///
    /// ```swift
    /// final class Clock {
    ///     @Published var now = Date()
    ///     init() { Timer.publish(every: 1, on: .main, in: .default).autoconnect().assign(to: &$now) }
    /// }
    /// ```
    ///
    /// **Demand:** `.unlimited`.
    /// **Thread safety:** values are set on whatever thread the upstream delivers on, one at a time. The `inout`
    /// access to `$property` lasts only for this call (the subscription keeps the property's storage weakly), so do
    /// not call it concurrently with other accesses to `$property`.
    public func assign(to published: inout Published<Output>.Publisher) {
        subscribe(PublishedAssignSubscriber(box: published.box))
    }
}

/// The subscriber behind `assign(to: &$property)`: it holds the property's storage weakly and is kept (through its
/// subscription) by that storage, which cancels it on deinit.
///
/// ```swift
/// upstream.subscribe(PublishedAssignSubscriber(box: published.box))
/// ```
///
/// **Demand:** `.unlimited`, once; a second subscription is cancelled.
/// **Thread safety:** the upstream may deliver on any thread; values are set one at a time as delivered.
final class PublishedAssignSubscriber<Input>: Subscriber, @unchecked Sendable {
    typealias Failure = Never

    private weak var box: PublishedBox<Input>?
    private let subscribed = LockedBox(tracking: false)

    init(box: PublishedBox<Input>) {
        self.box = box
    }

    func receive(subscription: Subscription) {
        let first = subscribed.withCriticalSection { subscribed -> Bool in
            defer { subscribed = true }
            return !subscribed
        }
        CalloutCheck.assertNoLockHeld("assign(to:) answering its subscription")
        guard first, let box, box.adopt(subscription) else {
            subscription.cancel()
            return
        }
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        box?.set(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {}
}
