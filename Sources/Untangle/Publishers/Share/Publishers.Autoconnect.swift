import UntangleSync

extension ConnectablePublisher {
    /// Automates the process of connecting or disconnecting from this connectable publisher.
    ///
    /// The first subscriber connects the upstream (after it has been attached, so it sees every value); when the
    /// last subscriber cancels, the connection is cancelled, and a later subscriber connects again. As in Combine, a
    /// completion does not count as leaving: a subscriber that arrives after the upstream completed (and before the
    /// others cancelled) attaches to the finished connection and receives its completion, without reconnecting.
    /// Apple's documentation only states the first half; Untangle documents and tests the reference counting.
    ///
    /// Each subscriber receives the upstream's own subscription, wrapped so that its cancel is counted (it
    /// describes itself as the upstream's does).
    ///
    /// ```swift
    /// let ticks = Timer.publish(every: 1, on: .main, in: .default).autoconnect()
    /// let cancellable = ticks.sink { print($0) }   // connects; cancelling disconnects
    /// ```
    ///
    /// **Demand:** each subscriber's demand goes to the connectable publisher unchanged.
    /// **Thread safety:** subscribers may attach and cancel from any threads at once: `connect()` is called
    /// exactly once per connection, however many first subscribers race, and never while a lock is held.
    public func autoconnect() -> Publishers.Autoconnect<Self> {
        Publishers.Autoconnect(upstream: self)
    }
}

extension Publishers {
    /// A publisher that automatically connects to an upstream connectable publisher.
    ///
    /// This publisher calls `connect()` on the upstream connectable publisher when first attached to by a
    /// subscriber, and cancels that connection when its last subscriber cancels.
    ///
    /// ```swift
    /// let automatic = Publishers.Autoconnect(upstream: connectable)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``ConnectablePublisher/autoconnect()``.
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream

        let state = LockedBox(tracking: AutoconnectStateMachine())

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber to the upstream, connecting it if this is the first subscriber.
        public final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let mustConnect = state.withCriticalSection { $0.subscriberAdded() }
            upstream.subscribe(AutoconnectInner(parent: self, downstream: subscriber))
            guard mustConnect else { return }
            CalloutCheck.assertNoLockHeld("autoconnect connecting its upstream")
            let connection = upstream.connect()
            // Every subscriber may have left while connect() ran: then this thread disconnects at once.
            let unneeded = state.withCriticalSection { $0.connected(connection) }
            CalloutCheck.assertNoLockHeld("autoconnect disconnecting an unneeded connection")
            unneeded?.cancel()
        }
    }
}

extension Publishers.Autoconnect: AutoconnectParent {
    func subscriberRemoved() {
        let connection = state.withCriticalSection { $0.subscriberRemoved() }
        CalloutCheck.assertNoLockHeld("autoconnect disconnecting after its last subscriber left")
        connection?.cancel()
    }
}

// Every entry point is thread-safe: the reference count lives behind the lock.
extension Publishers.Autoconnect: @unchecked Sendable {}
