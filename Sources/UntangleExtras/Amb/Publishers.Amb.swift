import Untangle

extension Publisher {
    /// Mirrors whichever of this publisher and `others` sends something first (a value or a completion) and cancels
    /// the rest: RxSwift's `amb`.
    ///
    /// ```swift
    /// let fastest = primaryServer.fetch().amb(mirror.fetch())
    /// let cancellable = fastest.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** until a winner is known, every request goes to every source; afterwards only to the winner.
    /// Values of losers that race with the winner's first signal are dropped, so the downstream never receives
    /// more than it requested.
    /// **Thread safety:** sources may deliver on any threads; the race is decided under a lock, the losers are
    /// cancelled outside it, and the downstream receives one signal at a time. `request`/`cancel` may be called from
    /// any thread.
    public func amb<Other: Publisher>(_ others: Other...) -> Publishers.Amb<Output, Failure>
    where Other.Output == Output, Other.Failure == Failure {
        Publishers.Amb([eraseToAnyPublisher()] + others.map { $0.eraseToAnyPublisher() })
    }
}

extension Publishers {
    /// A publisher that mirrors the first of its sources to send anything.
    ///
    /// With no sources it finishes at once.
    ///
    /// ```swift
    /// let first = Publishers.Amb([a.eraseToAnyPublisher(), b.eraseToAnyPublisher()])
    /// ```
    ///
    /// **Demand:** see ``Publisher/amb(_:)``.
    /// **Thread safety:** see ``Publisher/amb(_:)``.
    public struct Amb<Output, Failure: Error>: Publisher {
        /// The competing publishers, subscribed in this order.
        public let sources: [AnyPublisher<Output, Failure>]

        /// Creates the publisher.
        public init(_ sources: [AnyPublisher<Output, Failure>]) {
            self.sources = sources
        }

        /// Attaches the subscriber: it receives its subscription, then the sources are subscribed in order
        /// (stopping early if one of them already won while being subscribed).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            AmbSubscription(downstream: subscriber, count: sources.count).start(sources)
        }
    }
}
