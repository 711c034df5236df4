import UntangleSync

extension Publisher {
    /// Applies a closure to create a subject that delivers elements to subscribers.
    ///
    /// Subscribers attach to the subject; the subject subscribes to the upstream only when you call `connect()`
    /// (each call subscribes it once more, as in Combine: call it once, and cancel the returned cancellable to
    /// disconnect). The closure is called lazily, when the subject is first needed (first subscriber or first
    /// connect); every later subscriber shares that subject. If the first uses race on several threads the closure
    /// may run more than once, but only one subject is ever used (the others are released unused).
    ///
    /// ```swift
    /// let multicast = expensiveRequest.multicast { PassthroughSubject<Data, URLError>() }
    /// let a = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("a", $0) })
    /// let b = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("b", $0) })
    /// let connection = multicast.connect()
    /// ```
    ///
    /// **Demand:** the subject asks the upstream for `.unlimited`; each subscriber's demand is the subject's
    /// business (a `PassthroughSubject` drops values for subscribers without demand). The demand a subscriber
    /// returns from `receive(_:)` is requested from the subject after the call.
    /// **Thread safety:** subscribe, `connect()` and cancelling the connection may happen on any threads at once.
    public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self, createSubject: createSubject)
    }

    /// Provides a subject to deliver elements to multiple subscribers.
    ///
    /// ```swift
    /// let relay = PassthroughSubject<Int, Never>()
    /// let multicast = [1, 2, 3].publisher.multicast(subject: relay)
    /// let cancellable = multicast.sink { print($0) }
    /// let connection = multicast.connect()   // prints 1, 2, 3
    /// ```
    ///
    /// **Demand:** as ``Publisher/multicast(_:)``.
    /// **Thread safety:** as ``Publisher/multicast(_:)``.
    public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self) { subject }
    }
}

extension Publishers {
    /// A publisher that uses a subject to deliver elements to multiple subscribers.
    ///
    /// A connectable publisher: `connect()` subscribes the subject to the upstream, and cancelling the returned
    /// cancellable unsubscribes it. Each subscriber receives a "Multicast" subscription that relays to its
    /// subscription of the subject. The subject (made by `createSubject` on first use) is held for the publisher's
    /// lifetime; the connection does not keep it alive.
    ///
    /// ```swift
    /// let multicast = Publishers.Multicast(upstream: source) { PassthroughSubject<Int, Never>() }
    /// ```
    ///
    /// **Demand:** the subject asks the upstream for `.unlimited`; see ``Publisher/multicast(_:)``.
    /// **Thread safety:** see ``Publisher/multicast(_:)``.
    public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher
    where Upstream.Failure == SubjectType.Failure, Upstream.Output == SubjectType.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public final let upstream: Upstream

        /// A closure that creates the subject the subscribers attach to.
        public final let createSubject: () -> SubjectType

        private let subjectBox = LockedBox<SubjectType?>(tracking: nil)

        /// Creates a multicast publisher that applies a closure to create a subject that delivers elements to
        /// subscribers.
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
        }

        /// Attaches the subscriber to the subject, through a "Multicast" subscription.
        public final func receive<S: Subscriber>(subscriber: S)
        where S.Failure == SubjectType.Failure, S.Input == SubjectType.Output {
            subject().subscribe(MulticastInner(downstream: subscriber))
        }

        /// Subscribes the subject to the upstream; cancel the returned cancellable to disconnect. Every call
        /// subscribes again (as in Combine), so connect once per connection.
        public final func connect() -> Cancellable {
            let subject = subject()
            CalloutCheck.assertNoLockHeld("multicast subscribing its subject")
            return upstream.subscribe(subject)
        }

        // The user's closure runs outside the lock; a racing loser's subject is released after unlocking.
        private func subject() -> SubjectType {
            if let subject = subjectBox.withCriticalSection({ $0 }) {
                return subject
            }
            CalloutCheck.assertNoLockHeld("multicast creating its subject")
            let created = createSubject()
            return subjectBox.withCriticalSection { box -> SubjectType in
                if let existing = box {
                    return existing
                }
                box = created
                return created
            }
        }
    }
}

// Every entry point is thread-safe: the subject lives behind the lock.
extension Publishers.Multicast: @unchecked Sendable {}
