/// When a zip finishes (``ZipStateMachine``): Combine's rule for `Publishers.Zip`, RxSwift's for UntangleExtras'
/// zips that keep RxSwift's completion.
///
/// ```swift
/// subscribeZip(subscriber, to: sources, finishRule: .whenEveryUpstreamFinished) { $0 }
/// ```
///
/// **Demand:** none of its own.
/// **Thread safety:** a value.
@usableFromInline
package enum ZipFinishRule: Sendable {
    /// Combine's: as soon as a finished upstream has no unpaired value left (the others are cancelled).
    case whenAnUpstreamRunsOut
    /// RxSwift's `zip(_:_:)` … `zip(_:_:_:_:_:_:_:_:)` (RxSwift 5 and later, `Zip.swift`: `ZipSink.done`): once every
    /// upstream finished.
    case whenEveryUpstreamFinished
    /// RxSwift's `zip(_ collection:)` (`Zip+Collection.swift`): once every upstream finished, or when a value arrives
    /// that forms no tuple while every other upstream has finished.
    case whenEveryUpstreamFinishedOrAValueCannotPair
}

/// Subscribes `subscriber` to the zip of a collection of publishers of one type, in order, finishing by `finishRule`;
/// `makeOutput` turns one value of each publisher (in the collection's order) into the subscriber's input. The zip's
/// own machinery (``ZipSubscription``): UntangleExtras' `Collection.zip()`/`zip(finishing:)` are built on it.
///
/// ```swift
/// subscribeZip(subscriber, to: [a, b, c], finishRule: .whenEveryUpstreamFinished) { $0.map { $0 as! Int } }
/// ```
///
/// **Demand:** and **Thread safety:** as `Publishers.Zip`.
//
// Performance: `@inlinable`, so the client specializes the subscription and its inners for the publishers' type (no
// value erased on its way in, no runtime metadata lookup per value).
@inlinable
package func subscribeZip<S: Subscriber, Sources: Collection>(
    _ subscriber: S, to sources: Sources, finishRule: ZipFinishRule, makeOutput: @escaping ([Any]) -> S.Input
) where Sources.Element: Publisher, Sources.Element.Failure == S.Failure {
    let zip = ZipSubscription(
        downstream: subscriber, upstreamCount: sources.count, finishRule: finishRule, makeOutput: makeOutput)
    zip.start()
    for (index, source) in sources.enumerated() {
        source.subscribe(zip.inner(index, Sources.Element.Output.self))
    }
}
