import UntangleSync

extension Publisher {
    /// Applies a closure to create a subject that delivers elements to subscribers.
    ///
    /// Subscribers attach to the subject; the upstream is subscribed (once) only when you call `connect()`. The
    /// closure is called lazily, when the subject is first needed (first subscriber or first connect); every later
    /// subscriber shares that subject. If the first uses race on several threads the closure may run more than
    /// once, but only one subject is ever used (the others are released unused).
    ///
    /// ```swift
    /// let multicast = expensiveRequest.multicast { PassthroughSubject<Data, URLError>() }
    /// let a = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("a", $0) })
    /// let b = multicast.sink(receiveCompletion: { _ in }, receiveValue: { print("b", $0) })
    /// let connection = multicast.connect()
    /// ```
    ///
    /// **Demand:** the subject asks the upstream for `.unlimited`; each subscriber's demand is the subject's
    /// business (a `PassthroughSubject` drops values for subscribers without demand).
    /// **Thread safety:** subscribe, `connect()` and cancelling the connection may happen on any threads at once;
    /// while connected, `connect()` returns the existing connection instead of subscribing again.
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
    /// A connectable publisher: the upstream is subscribed to the subject when `connect()` is called, and
    /// unsubscribed when the returned cancellable is cancelled. After a disconnect, `connect()` subscribes again.
    ///
    /// ```swift
    /// let multicast = Publishers.Multicast(upstream: source) { PassthroughSubject<Int, Never>() }
    /// ```
    ///
    /// **Demand:** the subject asks the upstream for `.unlimited`.
    /// **Thread safety:** see ``Publisher/multicast(_:)``. The connection stays alive while either the returned
    /// cancellable or this publisher is referenced (releasing both disconnects).
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

        private struct State {
            var subject: SubjectType?
            var connection: MulticastConnection?
        }

        private let state = LockedBox(tracking: State())

        /// Creates a multicast publisher that applies a closure to create a subject that delivers elements to
        /// subscribers.
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
        }

        /// Attaches the subscriber to the subject.
        public final func receive<S: Subscriber>(subscriber: S)
        where S.Failure == SubjectType.Failure, S.Input == SubjectType.Output {
            subject().subscribe(subscriber)
        }

        /// Subscribes the subject to the upstream, or returns the existing connection if already connected.
        public final func connect() -> Cancellable {
            let subject = subject()
            let (connection, isNew) = state.withCriticalSection { state -> (MulticastConnection, Bool) in
                if let connection = state.connection {
                    return (connection, false)
                }
                let connection = MulticastConnection { [weak self] ended in self?.forget(ended) }
                state.connection = connection
                return (connection, true)
            }
            if isNew {
                CalloutCheck.assertNoLockHeld("multicast subscribing its subject")
                connection.attach(upstream.subscribe(subject))
            }
            return connection
        }

        // The user's closure runs outside the lock; a racing loser's subject is released after unlocking.
        private func subject() -> SubjectType {
            if let subject = state.withCriticalSection({ $0.subject }) {
                return subject
            }
            CalloutCheck.assertNoLockHeld("multicast creating its subject")
            let created = createSubject()
            return state.withCriticalSection { state -> SubjectType in
                if let existing = state.subject {
                    return existing
                }
                state.subject = created
                return created
            }
        }

        private func forget(_ connection: MulticastConnection) {
            state.withCriticalSection { state in
                if state.connection === connection {
                    state.connection = nil
                }
            }
        }
    }
}

// Every entry point is thread-safe: the subject and the connection live behind the lock.
extension Publishers.Multicast: @unchecked Sendable {}
