extension Publisher where Failure == Never {
    /// Creates a connectable wrapper around the publisher.
    ///
    /// ```swift
    /// let connectable = [1, 2, 3].publisher.makeConnectable()
    /// let a = connectable.sink { print("a", $0) }
    /// let b = connectable.sink { print("b", $0) }
    /// let connection = connectable.connect()   // both see 1, 2, 3
    /// ```
    ///
    /// **Demand:** the upstream is asked for `.unlimited` on `connect()`; a subscriber without demand misses the
    /// values sent meanwhile (they go through a `PassthroughSubject`).
    /// **Thread safety:** as ``Publisher/multicast(_:)``.
    public func makeConnectable() -> Publishers.MakeConnectable<Self> {
        Publishers.MakeConnectable(upstream: self)
    }
}

extension Publishers {
    /// A publisher that provides explicit connectability to another publisher.
    ///
    /// Copies share one connection: it is a value wrapper around a multicast to a `PassthroughSubject`.
    ///
    /// ```swift
    /// let connectable = Publishers.MakeConnectable(upstream: Just(1))
    /// ```
    ///
    /// **Demand:** see ``Publisher/makeConnectable()``.
    /// **Thread safety:** see ``Publisher/multicast(_:)``.
    public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        private let multicast: Publishers.Multicast<Upstream, PassthroughSubject<Output, Failure>>

        /// Creates a connectable publisher, attached to the provided upstream publisher.
        public init(upstream: Upstream) {
            multicast = Publishers.Multicast(upstream: upstream) { PassthroughSubject() }
        }

        /// Attaches the subscriber; it receives values once the publisher is connected.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            multicast.subscribe(subscriber)
        }

        /// Connects the upstream, or returns the existing connection.
        public func connect() -> Cancellable {
            multicast.connect()
        }
    }
}

// A value wrapper around a thread-safe multicast.
extension Publishers.MakeConnectable: @unchecked Sendable {}
