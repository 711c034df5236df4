import UntangleSync

extension Publisher where Failure == Never {
    /// Assigns each element from a publisher to a property on an object.
    ///
    /// The object is held strongly until the stream completes or is cancelled; assigning to a property of the object
    /// that holds the returned cancellable makes a cycle that lasts until then (use `assign(to: &$property)` or a weak
    /// capture in `sink` to avoid it).
    ///
    /// ```swift
    /// final class Label { var text = "" }
    /// let label = Label()
    /// let cancellable = Just("hello").assign(to: \.text, on: label)
    /// ```
    ///
    /// **Demand:** `.unlimited`.
    /// **Thread safety:** the property is set on whatever thread the upstream delivers on, one value at a time;
    /// `cancel()` may be called from any thread. A key path takes no closure, so nothing checks the actor the
    /// property belongs to, as with Apple's Combine: deliver on the object's thread first (for example
    /// `.receive(on: DispatchQueue.main)` before assigning to a `@MainActor` object).
    public func assign<Root>(
        to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root
    ) -> AnyCancellable {
        let assign = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(assign)
        return AnyCancellable(assign)
    }
}

extension Subscribers {
    /// A simple subscriber that assigns received elements to a property indicated by a key path.
    ///
    /// ```swift
    /// let assign = Subscribers.Assign(object: label, keyPath: \Label.text)
    /// Just("hi").subscribe(assign)
    /// ```
    ///
    /// **Demand:** `.unlimited`, requested once; a second subscription is cancelled at once.
    /// **Thread safety:** values are assigned one at a time, outside the subscriber's lock; `cancel()` may be called
    /// from any thread and releases the object.
    public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        /// Assign never fails.
        public typealias Failure = Never

        private struct State {
            var status = UpstreamSlot.awaiting
            var object: Root?
        }

        private let state: LockedBox<State>

        /// The key path that indicates the property to assign.
        public let keyPath: ReferenceWritableKeyPath<Root, Input>

        /// The object that contains the property to assign; nil after completion or cancellation.
        public var object: Root? {
            state.withCriticalSection { $0.object }
        }

        /// Creates a subscriber to assign the value of a property indicated by a key path.
        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            state = LockedBox(tracking: State(object: object))
            self.keyPath = keyPath
        }

        /// Requests `.unlimited` from the first subscription; cancels any later one.
        public func receive(subscription: Subscription) {
            state.withCriticalSection { $0.status.admit(subscription, requesting: .unlimited) }
                .perform(on: subscription, operator: "Assign")
        }

        /// Assigns the value to the object's property (outside the lock: the setter may run observers). A value that
        /// arrives before the subscription or after the end is ignored, as in Combine.
        public func receive(_ value: Input) -> Subscribers.Demand {
            let object = state.withCriticalSection { state -> Root? in
                guard case .subscribed = state.status else { return nil }
                return state.object
            }
            if let object {
                object[keyPath: keyPath] = value
            }
            return .none
        }

        /// Releases the object and the subscription. A completion that arrives before the subscription is ignored,
        /// as in Combine: the object stays, and a subscription that arrives later assigns as usual.
        public func receive(completion: Subscribers.Completion<Never>) {
            let released = state.withCriticalSection { state -> State? in
                guard case .subscribed = state.status else { return nil }
                defer { state = State(status: .ended, object: nil) }
                return state
            }
            withExtendedLifetime(released) {}
        }

        /// Cancels the upstream subscription and releases the object.
        public func cancel() {
            let released = end()
            if case .subscribed(let subscription) = released.status {
                CalloutCheck.assertNoLockHeld("Assign cancelling its subscription")
                subscription.cancel()
            }
        }

        private func end() -> State {
            state.withCriticalSection { state -> State in
                defer { state = State(status: .ended, object: nil) }
                return state
            }
        }

        /// A description naming the object's type and the key path.
        public var description: String { "Assign \(Root.self)." }
        /// A mirror showing the object, the key path and the subscription status.
        public var customMirror: Mirror {
            let (object, status) = state.withCriticalSection { ($0.object, $0.status) }
            let statusDescription: String
            switch status {
            case .awaiting: statusDescription = "awaitingSubscription"
            case .subscribed(let subscription): statusDescription = "subscribed(\(subscription))"
            case .ended: statusDescription = "terminal"
            }
            return Mirror(self, children: ["object": object as Any, "keyPath": keyPath, "status": statusDescription])
        }
        /// The description.
        public var playgroundDescription: Any { description }
    }
}
