import Untangle

/// A relay that holds a current value: new subscribers receive it first; it never fails and never finishes.
///
/// Like `CurrentValueSubject`, a subscriber without demand does not lose the latest value: it receives the value
/// that is current when it next asks (intermediate values are skipped). When the relay is released, its
/// subscribers simply receive nothing more.
///
/// ```swift
/// let name = CurrentValueRelay("anonymous")
/// let cancellable = name.sink { print($0) }   // prints "anonymous"
/// name.accept("Ada")                         // prints "Ada"
/// print(name.value)                          // "Ada"
/// ```
///
/// **Demand:** per subscriber: values within its demand are delivered in order; without demand only the latest
/// value is kept for it.
/// **Thread safety:** `value`, `accept`, `subscribe` and every subscription's `request`/`cancel` may be called from
/// any thread, concurrently. The current value is delivered to a new subscriber outside every lock; each
/// subscriber receives one value at a time and no thread waits for another thread's delivery.
public final class CurrentValueRelay<Output>: Relay, @unchecked Sendable {
    /// A relay never fails.
    public typealias Failure = Never

    @usableFromInline let subject: CurrentValueSubject<Output, Never>

    /// Creates a relay holding `value`.
    public init(_ value: Output) {
        subject = CurrentValueSubject(value)
    }

    /// The current value (the last one accepted).
    @inlinable
    public var value: Output {
        subject.value
    }

    /// Makes `value` current and sends it to subscribers.
    @inlinable
    public func accept(_ value: Output) {
        subject.send(value)
    }

    /// Attaches a subscriber; it receives the current value on its first request.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subject.receive(subscriber: subscriber)
    }
}

extension CurrentValueRelay: _OneObjectSink {
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
