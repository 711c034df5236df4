import Untangle

// Inlinable: the sources are erased, and the fan-in specialized, in the caller (no metadata lookup per value).
extension Publisher {
    /// Mirrors whichever of this publisher and `others` sends something first (a value or a completion) and cancels
    /// the rest: RxSwift's `amb`.
    ///
    /// ```swift
    /// let fastest = primaryServer.fetch().amb(mirror.fetch())
    /// ```
    ///
    /// **Demand:** every request goes to every source until one wins, then to the winner only (losers' values drop).
    /// **Thread safety:** sources may deliver on any threads; the downstream receives one signal at a time.
    @inlinable
    public func amb<Other: Publisher>(_ others: Other...) -> Publishers.Amb<Output, Failure>
    where Other.Output == Output, Other.Failure == Failure {
        Publishers.Amb([eraseToAnyPublisher()] + others.map { $0.eraseToAnyPublisher() })
    }
}

extension Publishers {
    /// A publisher that mirrors the first of its sources to send anything; with no sources it finishes at once.
    ///
    /// **Demand:** and **Thread safety:** see ``Publisher/amb(_:)``.
    public struct Amb<Output, Failure: Error>: Publisher {
        /// The competing publishers, subscribed in this order (until one has won).
        public let sources: [AnyPublisher<Output, Failure>]
        /// Creates the publisher: `Publishers.Amb([a.eraseToAnyPublisher(), b.eraseToAnyPublisher()])`.
        public init(_ sources: [AnyPublisher<Output, Failure>]) { self.sources = sources }
        /// Attaches the subscriber, then subscribes the sources in order until one has won.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            FanInSubscription.subscribe(subscriber, machine: AmbStateMachine(racing: sources.count), sources: sources)
        }
    }
}

/// An amb's race, decided under the fan-in's lock: the first source to send anything wins, the others are cancelled.
@usableFromInline
struct AmbStateMachine: FanInStateMachine {
    @usableFromInline enum Phase: Equatable { case racing, won(Int), ended }
    @inlinable static var settlesOnFirstDelivery: Bool { true }
    @usableFromInline var phase = Phase.racing
    @usableFromInline var upstreams: FanInUpstreams
    @inlinable init(racing count: Int) { upstreams = FanInUpstreams(count: count) }
    @inlinable mutating func cancelled() -> FanInEnding? { end(completed: nil) }
    @inlinable mutating func innerValue(_ id: Int) -> FanInValue {
        guard phase == .racing else { return phase == .won(id) ? .deliver : .drop }
        phase = .won(id)
        return .deliverCancelling(upstreams.endAll(except: id))
    }
    @inlinable mutating func innerCompleted<F>(_ id: Int, _ completion: Subscribers.Completion<F>) -> FanInEffects<F> {
        guard phase == .racing || phase == .won(id) else { return FanInEffects() }
        return FanInEffects(ending: end(completed: id), completion: completion)
    }
    @inlinable mutating func end(completed: Int?) -> FanInEnding? {
        phase = .ended
        return upstreams.ending(completed: completed)  // nil once every source had ended
    }
}
