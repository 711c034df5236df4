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

extension PassthroughRelay: _OneObjectSink {
    /// The one-object sink subscription (see `_OneObjectSink`): its subject's.
    ///
    /// ```swift
    /// let cancellable = subject.sink { print($0) }  // calls this
    /// ```
    @inlinable
    @inline(__always)
    public func _sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> () -> Void {
        subject._sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    }
}
