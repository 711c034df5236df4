// A sink on a subject is one object (see `SubjectSink`). The `sink` overloads below are `Publisher.sink`'s, declared in
// an extension of a protocol that refines `Publisher`, so the type checker picks them wherever the publisher's type is
// known to be one of Untangle's subjects (the usual `subject.sink { }`, `$property.sink { }`); anywhere else (an
// erased or generic publisher) `Publisher.sink` makes a `Subscribers.Sink`, with the same behaviour.

/// A publisher whose `sink` makes one object, the subscription holding the closures: Untangle's subjects
/// (`PassthroughSubject`, `CurrentValueSubject`, `@Published`'s publisher) and UntangleExtras' relays. An
/// implementation detail of theirs, public only so that their `sink` calls resolve to it; not for other types.
///
/// ```swift
/// let subject = PassthroughSubject<Int, Never>()
/// let cancellable = subject.sink { print($0) }  // one object, through this protocol's `sink`
/// ```
///
/// **Demand:** `.unlimited`, as every sink.
/// **Thread safety:** as `Publisher.sink(receiveCompletion:receiveValue:)`.
public protocol _OneObjectSink: Publisher {
    /// Makes the one-object subscription of a sink with these closures (what both `sink` overloads call).
    func _sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable
}

extension _OneObjectSink {
    /// Attaches a subscriber with closure-based behavior: `Publisher.sink(receiveCompletion:receiveValue:)`, as one
    /// object for this subject (a subject with a current value delivers it before this call returns).
    ///
    /// ```swift
    /// let subject = PassthroughSubject<Int, URLError>()
    /// let cancellable = subject.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** `.unlimited`, as every sink.
    /// **Thread safety:** as `Publisher.sink(receiveCompletion:receiveValue:)`.
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        _sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    }
}

extension _OneObjectSink where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a subject that never fails:
    /// `Publisher.sink(receiveValue:)`, as one object for this subject (a subject with a current value delivers it
    /// before this call returns).
    ///
    /// ```swift
    /// let level = CurrentValueSubject<Int, Never>(1)
    /// let cancellable = level.sink { print($0) }  // prints 1
    /// ```
    ///
    /// **Demand:** `.unlimited`, as every sink.
    /// **Thread safety:** as `Publisher.sink(receiveValue:)`.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        _sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
