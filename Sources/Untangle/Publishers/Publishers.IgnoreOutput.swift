import UntangleSync

extension Publisher {
    /// Ignores all upstream elements, but passes along the upstream publisher's completion state (finished or
    /// failed).
    ///
    /// ```swift
    /// let cancellable = (1...3).publisher
    ///     .ignoreOutput()
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })   // finished
    /// ```
    ///
    /// As in Combine, the subscriber gets the upstream's own subscription: its requests and its cancel go straight
    /// upstream, and every completion the upstream sends is passed on.
    ///
    /// **Demand:** it asks the upstream for `.unlimited` right after the downstream got the subscription, on top of
    /// whatever the downstream requests itself (it never sends values, and a completion needs no demand).
    /// **Thread safety:** the operator keeps no mutable state: the subscriber's `request`/`cancel` reach the
    /// upstream's subscription directly, with that subscription's guarantees.
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}

extension Publishers {
    /// A publisher that ignores all upstream elements, but passes along the upstream publisher's completion state.
    ///
    /// **Demand:** see ``Publisher/ignoreOutput()``.
    /// **Thread safety:** see ``Publisher/ignoreOutput()``.
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        /// It never publishes a value.
        public typealias Output = Never
        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, Upstream.Failure == S.Failure {
            upstream.subscribe(IgnoreOutputSubscriber<Upstream, S>(downstream: subscriber))
        }
    }
}

/// What ``Publishers/IgnoreOutput`` subscribes to its upstream: it hands the upstream's subscription to the
/// downstream, then asks for `.unlimited`; it drops every value and passes every completion on.
///
/// ```swift
/// upstream.subscribe(IgnoreOutputSubscriber<Upstream, S>(downstream: subscriber))
/// ```
///
/// **Demand:** `.unlimited` upstream, requested after the downstream got the subscription; each value returns
/// `.none`.
/// **Thread safety:** immutable; signals arrive on the upstream's (serialized) signal path and are passed on with
/// no lock held.
@usableFromInline
final class IgnoreOutputSubscriber<Upstream: Publisher, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Never, Downstream.Failure == Upstream.Failure {
    @usableFromInline
    typealias Input = Upstream.Output
    @usableFromInline
    typealias Failure = Upstream.Failure

    @usableFromInline
    let downstream: Downstream

    @inlinable
    init(downstream: Downstream) {
        self.downstream = downstream
    }

    @inlinable
    func receive(subscription: Subscription) {
        CalloutCheck.assertNoLockHeld("ignoreOutput passing on the upstream's subscription")
        downstream.receive(subscription: subscription)
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: Upstream.Output) -> Subscribers.Demand { .none }

    @inlinable
    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        CalloutCheck.assertNoLockHeld("ignoreOutput passing on a completion")
        downstream.receive(completion: completion)
    }

    @inlinable
    var description: String { "IgnoreOutput" }

    @inlinable
    var playgroundDescription: Any { description }

    @inlinable
    var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}
