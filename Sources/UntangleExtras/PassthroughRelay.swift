import Untangle

/// A relay that broadcasts values to its current subscribers; it never fails and never finishes.
///
/// A value accepted when a subscriber has no outstanding demand is not delivered to that subscriber (as with
/// `PassthroughSubject`). When the relay is released, its subscribers simply receive nothing more: no completion.
///
/// ```swift
/// let taps = PassthroughRelay<Void>()
/// let cancellable = taps.sink { print("tap") }
/// taps.accept(())          // prints "tap"
/// ```
///
/// **Demand:** per subscriber: a value goes to every subscriber with outstanding demand and is dropped for others.
/// **Thread safety:** `accept`, `subscribe` and every subscription's `request`/`cancel` may be called from any
/// thread, concurrently; each subscriber receives one value at a time, with no library lock held, and no thread
/// waits for another thread's delivery. Values accepted concurrently interleave in an unspecified order.
public final class PassthroughRelay<Output>: Relay, @unchecked Sendable {
    /// A relay never fails.
    public typealias Failure = Never

    @usableFromInline let subject = PassthroughSubject<Output, Never>()

    /// Creates a relay with no subscribers.
    public init() {}

    /// Sends `value` to every subscriber that has outstanding demand.
    @inlinable
    public func accept(_ value: Output) {
        subject.send(value)
    }

    /// Attaches a subscriber.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subject.receive(subscriber: subscriber)
    }
}

// As for PassthroughSubject (Sources/Untangle/Subjects/SubjectSink.swift): `Publisher.sink`'s overloads, found first
// where the publisher's type is known to be a relay, make the subscription and the sink one object.
extension PassthroughRelay {
    /// Attaches a subscriber with closure-based behavior: `Publisher.sink(receiveValue:)`, as one object for this
    /// relay.
    ///
    /// ```swift
    /// let taps = PassthroughRelay<Void>()
    /// let cancellable = taps.sink { print("tap") }
    /// ```
    ///
    /// **Demand:** `.unlimited`, as every sink.
    /// **Thread safety:** as `Publisher.sink(receiveValue:)`.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        subject.sink(receiveValue: receiveValue)
    }

    /// Attaches a subscriber with closure-based behavior: `Publisher.sink(receiveCompletion:receiveValue:)`, as one
    /// object for this relay (which never completes).
    ///
    /// ```swift
    /// let cancellable = PassthroughRelay<Int>().sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** `.unlimited`, as every sink.
    /// **Thread safety:** as `Publisher.sink(receiveCompletion:receiveValue:)`.
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Never>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        subject.sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    }
}
