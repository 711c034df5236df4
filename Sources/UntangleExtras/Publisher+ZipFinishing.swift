import Untangle

// The forms RxSwift's `Observable.zip(_:_:)` … migrate to: two, three and four publishers (Combine's zips stop at
// four). Each is Combine's own `Publishers.Zip`…`Zip4`, erased, with RxSwift's completion rule
// (`ZipFinishRule.whenEveryUpstreamFinished`) for `.whenEveryPublisherFinishes`.
//
// Performance: `@inlinable`, so the zip is made and erased where its types are known and runs specialized, as the core's
// `zip` does (it erased each source to `AnyPublisher<Any, Failure>` in unspecialized code: 9,952 instructions per
// value against the core's 1,450, two thirds of them runtime metadata lookups).
extension Publisher {
    /// Pairs the n-th values of this publisher and `other`, finishing as `finishing` says: `.whenEveryPublisherFinishes`
    /// is RxSwift's `Observable.zip(a, b)` (it finishes only once both have finished), `.whenAPublisherRunsOut`
    /// Combine's `zip(_:)`.
    ///
    /// ```swift
    /// let pairs = letters.zip(digits, finishing: .whenEveryPublisherFinishes)
    /// // letters sends "a" and finishes; digits sends 1, 2 and finishes: ("a", 1), then finished (after digits)
    /// ```
    ///
    /// **Demand:** as Combine's `zip`: each request goes to both publishers.
    /// **Thread safety:** the publishers may send on any threads at once; the pairs are delivered one at a time.
    @inlinable
    public func zip<P: Publisher>(_ other: P, finishing: ZipFinish) -> AnyPublisher<(Output, P.Output), Failure>
    where P.Failure == Failure {
        Publishers.Zip(self, other, finishRule: finishing.rule).eraseToAnyPublisher()
    }

    /// Zips the n-th values of this publisher and two others into triples, finishing as `finishing` says (see
    /// `zip(_:finishing:)`): `.whenEveryPublisherFinishes` is RxSwift's `Observable.zip(a, b, c)`.
    ///
    /// ```swift
    /// let triples = a.zip(b, c, finishing: .whenEveryPublisherFinishes)
    /// ```
    ///
    /// **Demand:** as Combine's `zip`: each request goes to every publisher.
    /// **Thread safety:** the publishers may send on any threads at once; the triples are delivered one at a time.
    @inlinable
    public func zip<P: Publisher, Q: Publisher>(
        _ publisher1: P, _ publisher2: Q, finishing: ZipFinish
    ) -> AnyPublisher<(Output, P.Output, Q.Output), Failure> where P.Failure == Failure, Q.Failure == Failure {
        Publishers.Zip3(self, publisher1, publisher2, finishRule: finishing.rule).eraseToAnyPublisher()
    }

    /// Zips the n-th values of this publisher and three others into quadruples, finishing as `finishing` says (see
    /// `zip(_:finishing:)`): `.whenEveryPublisherFinishes` is RxSwift's `Observable.zip(a, b, c, d)`.
    ///
    /// ```swift
    /// let quadruples = a.zip(b, c, d, finishing: .whenEveryPublisherFinishes)
    /// ```
    ///
    /// **Demand:** as Combine's `zip`: each request goes to every publisher.
    /// **Thread safety:** the publishers may send on any threads at once; the quadruples are delivered one at a time.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(
        _ publisher1: P, _ publisher2: Q, _ publisher3: R, finishing: ZipFinish
    ) -> AnyPublisher<(Output, P.Output, Q.Output, R.Output), Failure>
    where P.Failure == Failure, Q.Failure == Failure, R.Failure == Failure {
        Publishers.Zip4(self, publisher1, publisher2, publisher3, finishRule: finishing.rule).eraseToAnyPublisher()
    }
}
