import Untangle

extension Collection where Element: Publisher {
    /// Combines the latest values of every publisher of the collection into an array: RxSwift's
    /// `Observable.combineLatest(_ collection:)`.
    ///
    /// Nothing is published until every publisher has published a value; from then on, each value of any of them
    /// publishes the array of the latest values, in the collection's order. The result finishes when every publisher
    /// has finished and fails when any of them fails. An empty collection publishes one empty array (the latest
    /// values of no publishers), then finishes, as RxSwift's does since 5.0.
    ///
    /// ```swift
    /// let totals = [prices, taxes, fees].combineLatest().map { $0.reduce(0, +) }
    /// ```
    ///
    /// **Demand:** as nested `combineLatest`s: the downstream's demand goes to each publisher; a publisher that
    /// ignores demand may lose values.
    /// **Thread safety:** built from `combineLatest` and `map`: the publishers may publish on any threads at once;
    /// the arrays are delivered one at a time.
    public func combineLatest() -> AnyPublisher<[Element.Output], Element.Failure> {
        // Nested pairwise combineLatests publish exactly when the n-ary one would: once every publisher has a value,
        // one array per upstream value, finishing when all have finished.
        guard let head = first else {
            return Just([]).setFailureType(to: Element.Failure.self).eraseToAnyPublisher()
        }
        return dropFirst().reduce(head.map { [$0] }.eraseToAnyPublisher()) { combined, next in
            combined.combineLatest(next).map { $0 + [$1] }.eraseToAnyPublisher()
        }
    }
}
