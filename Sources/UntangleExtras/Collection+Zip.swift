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
    /// **Demand:** as Combine's `zip`: each request goes to every publisher.
    /// **Thread safety:** the publishers may publish on any threads at once; the arrays are delivered one at a time.
    @inlinable
    public func zip() -> AnyPublisher<[Element.Output], Element.Failure> {
        zip(finishing: .whenAPublisherRunsOut)
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
    @inlinable
    public func zip(finishing: ZipFinish) -> AnyPublisher<[Element.Output], Element.Failure> {
        // One zip of all the publishers on the core's zip machinery (what `Publishers.Zip4` runs on, for any count),
        // with Combine's finishing rule or RxSwift's for collections. Inlinable: made and erased where the
        // publishers' type is known, so it runs specialized.
        guard !isEmpty else { return Empty().eraseToAnyPublisher() }
        let rule: ZipFinishRule =
            finishing == .whenEveryPublisherFinishes
            ? .whenEveryUpstreamFinishedOrAValueCannotPair : .whenAnUpstreamRunsOut
        return CollectionZip(sources: Array(self), finishRule: rule).eraseToAnyPublisher()
    }
}

/// The zip of a collection of publishers of one type, finishing by a `ZipFinishRule`: the publisher behind
/// `Collection.zip()` and `zip(finishing:)`, on the core's zip machinery (`subscribeZip`).
///
/// ```swift
/// let rows = CollectionZip(sources: [a, b, c], finishRule: .whenEveryUpstreamFinished)
/// ```
///
/// **Demand:** as `Publishers.Zip`: each request goes to every publisher.
/// **Thread safety:** as `Publishers.Zip`: the publishers may deliver on any threads; one signal at a time downstream.
@usableFromInline
struct CollectionZip<Source: Publisher>: Publisher {
    @usableFromInline typealias Output = [Source.Output]
    @usableFromInline typealias Failure = Source.Failure

    /// The publishers, in order.
    @usableFromInline let sources: [Source]
    /// When the zip finishes.
    @usableFromInline let finishRule: ZipFinishRule

    @inlinable
    init(sources: [Source], finishRule: ZipFinishRule) {
        self.sources = sources
        self.finishRule = finishRule
    }

    @inlinable
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        // Each inner stores only values of `Source.Output`, so the casts cannot fail.
        subscribeZip(subscriber, to: sources, finishRule: finishRule) { $0.map { $0 as! Source.Output } }
    }
}
