// A sink on a subject is one object (see `SubjectSink`). The `sink` overloads below are `Publisher.sink`'s, declared in
// an extension of a protocol that refines `Publisher`, so the type checker picks them wherever the publisher's type is
// known to be one of Untangle's subjects (the usual `subject.sink { }`, `$property.sink { }`); anywhere else (an
// erased or generic publisher) `Publisher.sink` makes a `Subscribers.Sink`, with the same behaviour.
//
// While an `_Introspection` is enabled, `sink` makes `Publisher.sink`'s two objects instead, through `subscribe`, so
// that the introspection sees the subscription as Combine shows it. That branch must not cost the one-object path:
// the path (`sink`, each type's `_sink`, `SubjectCore.subscribeSink`) is forced inline, as the compiler inlined it
// on its own before the branch existed, and both branches end in one `AnyCancellable` made in `sink`. With the
// branch and without these, subscribe-cancel took 1,703.7 instructions and two allocations (the `AnyCancellable`
// no longer kept off the heap where it does not escape); with them 1,438.7 (1,398.7 before the branch).

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
    /// Makes the one-object subscription of a sink with these closures (what both `sink` overloads call) and returns
    /// what cancels it; the overload wraps that in the `AnyCancellable` it returns.
    func _sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> () -> Void
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
    @inline(__always)
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        // The one object is made without `subscribe`, so an enabled `_Introspection` would not see it: while one is,
        // the sink is `Publisher.sink`'s, subscribed through `subscribe` (the check is the one atomic load `subscribe`
        // makes). Performance: both ways end in the one `AnyCancellable` made below, so that where it never escapes
        // (a subscribe and cancel in one function) the compiler can still keep it off the heap; an `AnyCancellable`
        // returned from each branch cost subscribe-cancel an allocation (1,398.7 instructions became 1,642.7).
        let cancel: () -> Void
        if _slowPath(IntrospectionHooks.isActive) {
            cancel = sinkObserved(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        } else {
            cancel = _sink(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        }
        return AnyCancellable(cancel)
    }

    /// `Publisher.sink`'s two objects, subscribed through `subscribe` so that the enabled introspections see them;
    /// returns what cancels the sink.
    @inlinable
    @inline(never)
    func sinkObserved(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> () -> Void {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return { sink.cancel() }
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
    @inline(__always)
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
