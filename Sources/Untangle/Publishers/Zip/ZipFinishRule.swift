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

/// Subscribes `subscriber` to the zip of `sources` (their values erased to `Any`, in order) finishing by
/// `finishRule`; `makeOutput` turns one value of each source into the subscriber's input. The zip's own machinery
/// (``ZipSubscription``): UntangleExtras' zips that keep RxSwift's completion are built on it.
///
/// ```swift
/// let sources = [a.map { $0 as Any }.eraseToAnyPublisher(), b.map { $0 as Any }.eraseToAnyPublisher()]
/// subscribeZip(subscriber, to: sources, finishRule: .whenEveryUpstreamFinished) { ($0[0] as! Int, $0[1] as! String) }
/// ```
///
/// **Demand:** and **Thread safety:** as `Publishers.Zip`.
package func subscribeZip<S: Subscriber>(
    _ subscriber: S, to sources: [AnyPublisher<Any, S.Failure>], finishRule: ZipFinishRule,
    makeOutput: @escaping ([Any]) -> S.Input
) {
    let zip = ZipSubscription(
        downstream: subscriber, upstreamCount: sources.count, finishRule: finishRule, makeOutput: makeOutput)
    zip.start()
    for (index, source) in sources.enumerated() {
        source.subscribe(zip.inner(index, Any.self))
    }
}
