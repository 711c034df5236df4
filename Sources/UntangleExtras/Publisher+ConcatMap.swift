import Untangle

extension Publisher {
    /// Transforms each value into a publisher and republishes their values one publisher after the other, in the
    /// order of the values that made them. RxSwift's `concatMap`; here exactly
    /// `flatMap(maxPublishers: .max(1), transform)`.
    ///
    /// ```swift
    /// let cancellable = uploads
    ///     .concatMap { file in api.upload(file) }     // one upload at a time, in order
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// Unlike RxSwift, which buffers every source value while an inner runs, this operator uses backpressure: this
    /// publisher is asked for the next value only when the current inner publisher has finished. A source that
    /// honours demand (a sequence, a `Deferred`, a network page loader) loses nothing. A source that ignores demand
    /// — a `PassthroughSubject` — drops the values sent while an inner runs; put a buffer in front to keep them:
    /// `subject.buffer(size: 100, prefetch: .keepFull, whenFull: .dropOldest).concatMap { ... }`.
    ///
    /// **Demand:** this publisher is asked for one value, then one more each time an inner publisher finishes; the
    /// current inner is asked for one value at a time while the downstream has demand (`.unlimited` once the
    /// downstream's demand is), as `flatMap` asks its inners.
    /// **Thread safety:** as `flatMap`: publishers may deliver on any threads, the downstream receives one signal
    /// at a time. `transform` runs on this publisher's delivering thread.
    public func concatMap<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<P, Self>
    where P.Failure == Failure {
        return flatMap(maxPublishers: .max(1), transform)
    }

    /// ``Untangle/Publisher/concatMap(_:)-8nbq7`` for inner publishers that cannot fail.
    ///
    /// ```swift
    /// let cancellable = failingIDs.concatMap { Just($0) }.sink(receiveCompletion: { _ in }) { _ in }
    /// ```
    ///
    /// **Demand:** as for ``Untangle/Publisher/concatMap(_:)-8nbq7``.
    /// **Thread safety:** as for ``Untangle/Publisher/concatMap(_:)-8nbq7``.
    public func concatMap<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P.Failure == Never
    {
        return flatMap(maxPublishers: .max(1), transform)
    }
}

extension Publisher where Failure == Never {
    /// ``Untangle/Publisher/concatMap(_:)-8nbq7`` for an upstream that cannot fail and inner publishers that can.
    ///
    /// ```swift
    /// let cancellable = files.concatMap { api.upload($0) }.sink(receiveCompletion: { _ in }) { _ in }
    /// ```
    ///
    /// **Demand:** as for ``Untangle/Publisher/concatMap(_:)-8nbq7``.
    /// **Thread safety:** as for ``Untangle/Publisher/concatMap(_:)-8nbq7``.
    public func concatMap<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>>
    {
        return flatMap(maxPublishers: .max(1), transform)
    }

    /// ``Untangle/Publisher/concatMap(_:)-8nbq7`` when neither side can fail.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher.concatMap { Just($0) }.sink { print($0) }
    /// ```
    ///
    /// **Demand:** as for ``Untangle/Publisher/concatMap(_:)-8nbq7``.
    /// **Thread safety:** as for ``Untangle/Publisher/concatMap(_:)-8nbq7``.
    public func concatMap<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<P, Self>
    where P.Failure == Never {
        return flatMap(maxPublishers: .max(1), transform)
    }
}
