/// A subject that broadcasts elements to downstream subscribers.
///
/// Unlike ``CurrentValueSubject``, a `PassthroughSubject` has no initial value or buffer of the most recently
/// published element: a value sent when a subscriber has no outstanding demand is not delivered to that subscriber
/// (as in Apple's Combine). After a completion, new subscribers receive the completion at once.
///
/// ```swift
/// let taps = PassthroughSubject<Int, Never>()
/// let cancellable = taps.sink { print("tap", $0) }
/// taps.send(1)          // prints "tap 1"
/// taps.send(completion: .finished)
/// ```
///
/// **Demand:** each subscriber's demand is tracked separately; a value is delivered to every subscriber with
/// outstanding demand and dropped for the others. `send(subscription:)` requests `.unlimited` upstream once a
/// subscriber has requested something; the subject keeps every upstream subscription, as Apple's does (see
/// ``send(subscription:)``).
/// **Thread safety:** `send`, `send(completion:)`, `subscribe` and every subscription's `request`/`cancel` may be
/// called from any thread, concurrently. Each subscriber receives one signal at a time, never overlapping; a thread
/// that sends while another thread is delivering to the same subscriber hands its value over and returns without
/// waiting. A `send` from inside a subscriber's `receive` on the same thread is delivered nested, as in Combine.
public final class PassthroughSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    @usableFromInline let core: SubjectCore<Output, Failure>

    /// Creates a subject with no subscribers.
    public init() {
        core = SubjectCore(current: nil, policy: .dropWithoutDemand, kind: .passthrough)
    }

    /// Attaches a subscriber; after a completion it receives that completion at once.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        core.subscribe(subscriber)
    }

    /// Sends a value to every subscriber that has outstanding demand. Ignored after a completion.
    @inlinable
    public func send(_ input: Output) {
        core.send(input)
    }

    /// Sends a completion to every subscriber; the first completion wins, later ones are ignored.
    public func send(completion: Subscribers.Completion<Failure>) {
        core.send(completion: completion)
    }

    /// Requests `.unlimited` from an upstream subscription (used when the subject subscribes to a publisher) once
    /// any subscriber has requested something (right away if one has; as in Combine, a subject without demanding
    /// subscribers lets its upstream wait).
    ///
    /// As in Apple's Combine, the subject keeps every subscription it is handed (once per hand-over), also after its
    /// completion (values arriving then are ignored) and also one handed over after it, until the subject goes away
    /// and cancels each. A connection made by `subscribe(_:)` that has ended is let go when the next one arrives.
    public func send(subscription: Subscription) {
        core.send(subscription: subscription)
    }
}

extension PassthroughSubject: _OneObjectSink {
    /// The one-object sink subscription (see `_OneObjectSink`).
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
        core.subscribeSink(
            closures: SinkClosures(receiveValue: receiveValue, receiveCompletion: receiveCompletion),
            hasCurrentValue: false)
    }
}
