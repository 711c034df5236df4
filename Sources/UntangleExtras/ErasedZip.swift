import Untangle

/// The zip of sources erased to `Any`, finishing by a ``ZipFinishRule``: the publisher behind UntangleExtras' zips
/// that keep RxSwift's completion, on the core's zip machinery (`subscribeZip`).
///
/// ```swift
/// let pairs = ErasedZip(sources: [a.erasedForZip(), b.erasedForZip()],
///                       finishRule: .whenEveryUpstreamFinished) { ($0[0] as! Int, $0[1] as! String) }
/// ```
///
/// **Demand:** as `Publishers.Zip`: each request goes to every source.
/// **Thread safety:** as `Publishers.Zip`: the sources may deliver on any threads; one signal at a time downstream.
struct ErasedZip<Output, Failure: Error>: Publisher {
    /// The sources, in order, their values erased.
    let sources: [AnyPublisher<Any, Failure>]
    /// When the zip finishes.
    let finishRule: ZipFinishRule
    /// One value of each source, in order, into the output.
    let makeOutput: ([Any]) -> Output

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscribeZip(subscriber, to: sources, finishRule: finishRule, makeOutput: makeOutput)
    }
}

extension Publisher {
    /// This publisher with its values erased to `Any`, for ``ErasedZip``.
    func erasedForZip() -> AnyPublisher<Any, Failure> {
        map { $0 as Any }.eraseToAnyPublisher()
    }
}
