/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// A new subscriber receives the current value as soon as it requests demand. Unlike a ``PassthroughSubject``, a
/// subscriber that has no demand when values are sent does not lose the latest one: it receives the value that is
/// current when it next asks (intermediate values are skipped), as in Apple's Combine. After a completion, `value`
/// still reads the last value, `send` is ignored, and new subscribers receive the completion at once.
///
/// ```swift
/// let temperature = CurrentValueSubject<Double, Never>(20)
/// let cancellable = temperature.sink { print($0) }   // prints 20.0
/// temperature.value = 21                            // prints 21.0
/// ```
///
/// **Demand:** per subscriber: values within its demand are delivered in order; without demand only the latest
/// value is kept for it. `send(subscription:)` requests `.unlimited` upstream at once; the subject keeps every
/// upstream subscription, as Apple's does (see ``send(subscription:)``).
/// **Thread safety:** `value`, `send`, `send(completion:)`, `subscribe` and every subscription's `request`/`cancel`
/// may be called from any thread, concurrently; each subscriber receives one signal at a time and no thread waits
/// for another thread's delivery (see ``PassthroughSubject``).
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    @usableFromInline let core: SubjectCore<Output, Failure>

    /// Creates a subject with the given initial value.
    public init(_ value: Output) {
        core = SubjectCore(current: value, policy: .keepLatest, kind: .currentValue)
    }

    /// A subject whose subscriptions describe themselves as `kind` (`@Published`'s).
    init(_ value: Output, kind: SubjectKind) {
        core = SubjectCore(current: value, policy: .keepLatest, kind: kind)
    }

    /// The value wrapped by this subject; setting it sends the new value to subscribers. After a completion,
    /// setting it still changes the value (nothing is sent), as in Combine; `send(_:)` then changes nothing.
    public var value: Output {
        get { core.current }
        set { core.setCurrent(newValue) }
    }

    /// Attaches a subscriber; it receives the current value on its first request.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        core.subscribe(subscriber)
    }

    /// Makes `input` the current value and sends it to subscribers. Ignored after a completion.
    @inlinable
    public func send(_ input: Output) {
        core.send(input)
    }

    /// Sends a completion to every subscriber; the first completion wins.
    public func send(completion: Subscribers.Completion<Failure>) {
        core.send(completion: completion)
    }

    /// Requests `.unlimited` from an upstream subscription, at once.
    ///
    /// As in Apple's Combine, the subject keeps every subscription it is handed (once per hand-over), also after its
    /// completion (values arriving then are ignored) and also one handed over after it, until the subject goes away
    /// and cancels each. A connection made by `subscribe(_:)` that has ended is let go when the next one arrives.
    public func send(subscription: Subscription) {
        core.send(subscription: subscription)
    }
}

extension CurrentValueSubject: _OneObjectSink {
    /// The one-object sink subscription (see `_OneObjectSink`), which delivers the current value first.
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
            hasCurrentValue: true)
    }
}
