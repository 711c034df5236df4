import Untangle

// The forms RxSwift's `Observable.zip(_:_:)` … migrate to: two, three and four publishers (Combine's zips stop at
// four). With `.whenEveryPublisherFinishes` they run on the core's zip machinery with RxSwift's completion rule
// (`ZipFinishRule.whenEveryUpstreamFinished`); with `.whenAPublisherRunsOut` they are Combine's zips, erased.
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
    public func zip<P: Publisher>(_ other: P, finishing: ZipFinish) -> AnyPublisher<(Output, P.Output), Failure>
    where P.Failure == Failure {
        guard finishing == .whenEveryPublisherFinishes else { return zip(other).eraseToAnyPublisher() }
        return ErasedZip(sources: [erasedForZip(), other.erasedForZip()], finishRule: .whenEveryUpstreamFinished) {
            ($0[0] as! Output, $0[1] as! P.Output)
        }
        .eraseToAnyPublisher()
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
    public func zip<P: Publisher, Q: Publisher>(
        _ publisher1: P, _ publisher2: Q, finishing: ZipFinish
    ) -> AnyPublisher<(Output, P.Output, Q.Output), Failure> where P.Failure == Failure, Q.Failure == Failure {
        guard finishing == .whenEveryPublisherFinishes else {
            return zip(publisher1, publisher2).eraseToAnyPublisher()
        }
        return ErasedZip(
            sources: [erasedForZip(), publisher1.erasedForZip(), publisher2.erasedForZip()],
            finishRule: .whenEveryUpstreamFinished
        ) { ($0[0] as! Output, $0[1] as! P.Output, $0[2] as! Q.Output) }
        .eraseToAnyPublisher()
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
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(
        _ publisher1: P, _ publisher2: Q, _ publisher3: R, finishing: ZipFinish
    ) -> AnyPublisher<(Output, P.Output, Q.Output, R.Output), Failure>
    where P.Failure == Failure, Q.Failure == Failure, R.Failure == Failure {
        guard finishing == .whenEveryPublisherFinishes else {
            return zip(publisher1, publisher2, publisher3).eraseToAnyPublisher()
        }
        return ErasedZip(
            sources: [erasedForZip(), publisher1.erasedForZip(), publisher2.erasedForZip(), publisher3.erasedForZip()],
            finishRule: .whenEveryUpstreamFinished
        ) { ($0[0] as! Output, $0[1] as! P.Output, $0[2] as! Q.Output, $0[3] as! R.Output) }
        .eraseToAnyPublisher()
    }
}
