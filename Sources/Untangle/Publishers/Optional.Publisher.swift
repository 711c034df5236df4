extension Optional {
    /// A publisher that publishes the wrapped value, if any, then finishes.
    ///
    /// ```swift
    /// let name: String? = "Ada"
    /// let cancellable = name.publisher.sink { print($0) }   // prints Ada
    /// ```
    public var publisher: Optional<Wrapped>.Publisher {
        Publisher(self)
    }

    /// A publisher that publishes an optional value to each subscriber exactly once, if the value is not nil.
    ///
    /// **Demand:** a non-nil value is delivered on the first request and followed at once by `.finished`; `nil`
    /// finishes at subscription without demand.
    /// **Thread safety:** as ``Just``.
    public struct Publisher: Untangle.Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Wrapped
        /// This publisher never fails.
        public typealias Failure = Never

        /// The value to deliver, or nil to finish without one.
        public let output: Wrapped?

        /// Creates a publisher for an optional value.
        public init(_ output: Output?) {
            self.output = output
        }

        /// Attaches a subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Wrapped, S.Failure == Never {
            guard let output else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
                return
            }
            SynchronousSourceSubscription.subscribe(
                subscriber, to: SingleValueSource<Wrapped, Never, OptionalName>(value: output), completion: .finished)
        }
    }
}

/// `Optional.Publisher`'s subscription name.
@usableFromInline
enum OptionalName: SingleValueSourceName {
    @usableFromInline static var name: String { "Optional" }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}
extension Optional.Publisher: Sendable where Wrapped: Sendable {}
