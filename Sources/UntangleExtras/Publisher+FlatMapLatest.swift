import Untangle

extension Publisher {
    /// Transforms each value into a publisher and republishes only the values of the most recent one: a new value
    /// cancels the publisher made for the previous one. RxSwift's `flatMapLatest`; here exactly
    /// `map(transform).switchToLatest()`.
    ///
    /// The result finishes when this publisher and the current inner publisher have finished, and fails on the
    /// first failure of either.
    ///
    /// ```swift
    /// let cancellable = query
    ///     .flatMapLatest { text in api.search(text) }
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** this publisher is asked for `.unlimited` (a value that arrives replaces the current inner). The
    /// downstream demand not yet met carries over to each new inner; a replaced inner's values still waiting for
    /// demand are dropped and do not use up demand.
    /// **Thread safety:** as `switchToLatest()`: publishers may deliver on any threads, the downstream receives one
    /// signal at a time, and no value of a replaced inner is delivered after the switch is decided. `transform` runs
    /// on this publisher's delivering thread.
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<P, Publishers.Map<Self, P>> where P.Failure == Failure
    {
        return map(transform).switchToLatest()
    }

    /// ``Untangle/Publisher/flatMapLatest(_:)-26cg0`` for inner publishers that cannot fail.
    ///
    /// ```swift
    /// let cancellable = failingIDs.flatMapLatest { id in Just(id * 2) }.sink(receiveCompletion: { _ in }) { _ in }
    /// ```
    ///
    /// **Demand:** as for ``Untangle/Publisher/flatMapLatest(_:)-26cg0``.
    /// **Thread safety:** as for ``Untangle/Publisher/flatMapLatest(_:)-26cg0``.
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<
            Publishers.SetFailureType<P, Failure>, Publishers.Map<Self, Publishers.SetFailureType<P, Failure>>
        > where P.Failure == Never
    {
        return map { transform($0).setFailureType(to: Failure.self) }.switchToLatest()
    }
}

extension Publisher where Failure == Never {
    /// ``Untangle/Publisher/flatMapLatest(_:)-26cg0`` for an upstream that cannot fail and inner publishers that can.
    ///
    /// ```swift
    /// let cancellable = searchText.flatMapLatest { api.search($0) }.sink(receiveCompletion: { _ in }) { _ in }
    /// ```
    ///
    /// **Demand:** as for ``Untangle/Publisher/flatMapLatest(_:)-26cg0``.
    /// **Thread safety:** as for ``Untangle/Publisher/flatMapLatest(_:)-26cg0``.
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<P, Publishers.Map<Publishers.SetFailureType<Self, P.Failure>, P>>
    {
        return setFailureType(to: P.Failure.self).map(transform).switchToLatest()
    }

    /// ``Untangle/Publisher/flatMapLatest(_:)-26cg0`` when neither side can fail.
    ///
    /// ```swift
    /// let cancellable = ids.flatMapLatest { Just($0 * 2) }.sink { print($0) }
    /// ```
    ///
    /// **Demand:** as for ``Untangle/Publisher/flatMapLatest(_:)-26cg0``.
    /// **Thread safety:** as for ``Untangle/Publisher/flatMapLatest(_:)-26cg0``.
    public func flatMapLatest<P: Publisher>(_ transform: @escaping (Output) -> P)
        -> Publishers.SwitchToLatest<P, Publishers.Map<Self, P>> where P.Failure == Never
    {
        return map(transform).switchToLatest()
    }
}
