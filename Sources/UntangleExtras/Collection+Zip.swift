import Untangle

extension Collection where Element: Publisher {
    /// Zips the publishers of the collection into arrays: RxSwift's `Observable.zip(_ collection:)`.
    ///
    /// The n-th array holds the n-th value of every publisher, in the collection's order. As Combine's `zip`, the
    /// result finishes as soon as a finished publisher has no value left to pair (RxSwift's waits until every source
    /// completed: `zip(finishing: .whenEveryPublisherFinishes)` does what RxSwift's does), and fails when any of them
    /// fails. An empty collection finishes at once.
    ///
    /// ```swift
    /// let pages = urls.map(load).zip()   // one array with every page, once all have loaded
    /// ```
    ///
    /// **Demand:** as nested `zip`s: each publisher is asked only for what the downstream can take.
    /// **Thread safety:** built from `zip` and `map`: the publishers may publish on any threads at once; the arrays
    /// are delivered one at a time.
    public func zip() -> AnyPublisher<[Element.Output], Element.Failure> {
        // Nested pairwise zips pair the n-th values of every publisher, as the n-ary zip does.
        guard let head = first else { return Empty().eraseToAnyPublisher() }
        return dropFirst().reduce(head.map { [$0] }.eraseToAnyPublisher()) { zipped, next in
            zipped.zip(next).map { $0 + [$1] }.eraseToAnyPublisher()
        }
    }

    /// Zips the publishers of the collection into arrays, finishing as `finishing` says: with
    /// `.whenEveryPublisherFinishes` it is RxSwift's `Observable.zip(_ collection:)`, which finishes once every
    /// publisher has finished, or when a value arrives that can never be paired because every other publisher has
    /// finished (`Zip+Collection.swift`); `.whenAPublisherRunsOut` is `zip()`. It fails when any of them fails; an
    /// empty collection finishes at once.
    ///
    /// ```swift
    /// let rows = columns.zip(finishing: .whenEveryPublisherFinishes)
    /// ```
    ///
    /// **Demand:** as `zip()`: each request goes to every publisher.
    /// **Thread safety:** the publishers may publish on any threads at once; the arrays are delivered one at a time.
    public func zip(finishing: ZipFinish) -> AnyPublisher<[Element.Output], Element.Failure> {
        guard finishing == .whenEveryPublisherFinishes, !isEmpty else { return zip() }
        return ErasedZip(
            sources: map { $0.erasedForZip() }, finishRule: .whenEveryUpstreamFinishedOrAValueCannotPair
        ) { $0.map { $0 as! Element.Output } }
        .eraseToAnyPublisher()
    }
}
