import Untangle

extension Publisher {
    /// Combines each value of this publisher with the latest value of `other`, using `resultSelector`.
    ///
    /// Values of this publisher that arrive before `other` has sent anything are dropped. The result finishes or
    /// fails when this publisher does, and fails when `other` fails; `other` finishing changes nothing (its latest
    /// value keeps being used). Like RxSwift's `withLatestFrom(_:resultSelector:)`.
    ///
    /// ```swift
    /// let cancellable = submitTaps
    ///     .withLatestFrom(formText) { _, text in text }
    ///     .sink { text in submit(text) }
    /// ```
    ///
    /// **Demand:** the downstream's demand goes to this publisher (a dropped value is replaced by a request for one
    /// more); `other` is asked for `.unlimited`, since only its latest value is kept.
    /// **Thread safety:** both publishers may deliver on any threads; the downstream receives one signal at a time.
    /// `resultSelector` runs on this publisher's delivering thread, outside every lock; `request`/`cancel` may be
    /// called from any thread.
    public func withLatestFrom<Other: Publisher, Result>(
        _ other: Other, resultSelector: @escaping (Output, Other.Output) -> Result
    ) -> Publishers.WithLatestFrom<Self, Other, Result> where Other.Failure == Failure {
        return Publishers.WithLatestFrom(upstream: self, other: other, resultSelector: resultSelector)
    }

    /// Replaces each value of this publisher with the latest value of `other`.
    ///
    /// ```swift
    /// let cancellable = refreshTaps.withLatestFrom(currentUser).sink { user in reload(user) }
    /// ```
    ///
    /// **Demand:** as for ``withLatestFrom(_:resultSelector:)``.
    /// **Thread safety:** as for ``withLatestFrom(_:resultSelector:)``.
    public func withLatestFrom<Other: Publisher>(_ other: Other)
        -> Publishers.WithLatestFrom<Self, Other, Other.Output> where Other.Failure == Failure
    {
        Publishers.WithLatestFrom(upstream: self, other: other) { $1 }
    }

    /// Combines each value of this publisher with the latest values of two other publishers.
    ///
    /// Values of this publisher are dropped until both others have sent a value. Built on
    /// `other1.combineLatest(other2)`, so "latest" means the latest of each.
    ///
    /// ```swift
    /// let cancellable = saveTaps
    ///     .withLatestFrom(name, email) { _, fields in Form(name: fields.0, email: fields.1) }
    ///     .sink { save($0) }
    /// ```
    ///
    /// **Demand:** as for ``withLatestFrom(_:resultSelector:)``; both others are asked for `.unlimited`.
    /// **Thread safety:** as for ``withLatestFrom(_:resultSelector:)``.
    public func withLatestFrom<Other1: Publisher, Other2: Publisher, Result>(
        _ other1: Other1, _ other2: Other2,
        resultSelector: @escaping (Output, (Other1.Output, Other2.Output)) -> Result
    ) -> Publishers.WithLatestFrom<Self, Publishers.CombineLatest<Other1, Other2>, Result>
    where Other1.Failure == Failure, Other2.Failure == Failure {
        return Publishers.WithLatestFrom(
            upstream: self, other: other1.combineLatest(other2), resultSelector: resultSelector)
    }

    /// Replaces each value of this publisher with the latest values of two other publishers.
    ///
    /// ```swift
    /// let cancellable = taps.withLatestFrom(name, email).sink { name, email in print(name, email) }
    /// ```
    ///
    /// **Demand:** as for ``withLatestFrom(_:resultSelector:)``.
    /// **Thread safety:** as for ``withLatestFrom(_:resultSelector:)``.
    public func withLatestFrom<Other1: Publisher, Other2: Publisher>(_ other1: Other1, _ other2: Other2)
        -> Publishers.WithLatestFrom<
            Self, Publishers.CombineLatest<Other1, Other2>, (Other1.Output, Other2.Output)
        >
    where Other1.Failure == Failure, Other2.Failure == Failure {
        Publishers.WithLatestFrom(upstream: self, other: other1.combineLatest(other2)) { $1 }
    }

    /// Combines each value of this publisher with the latest values of three other publishers.
    ///
    /// ```swift
    /// let cancellable = taps
    ///     .withLatestFrom(a, b, c) { tap, latest in (tap, latest.0 + latest.1 + latest.2) }
    ///     .sink { print($0) }
    /// ```
    ///
    /// **Demand:** as for ``withLatestFrom(_:resultSelector:)``; the others are asked for `.unlimited`.
    /// **Thread safety:** as for ``withLatestFrom(_:resultSelector:)``.
    public func withLatestFrom<Other1: Publisher, Other2: Publisher, Other3: Publisher, Result>(
        _ other1: Other1, _ other2: Other2, _ other3: Other3,
        resultSelector: @escaping (Output, (Other1.Output, Other2.Output, Other3.Output)) -> Result
    ) -> Publishers.WithLatestFrom<Self, Publishers.CombineLatest3<Other1, Other2, Other3>, Result>
    where Other1.Failure == Failure, Other2.Failure == Failure, Other3.Failure == Failure {
        return Publishers.WithLatestFrom(
            upstream: self, other: other1.combineLatest(other2, other3), resultSelector: resultSelector)
    }

    /// Replaces each value of this publisher with the latest values of three other publishers.
    ///
    /// ```swift
    /// let cancellable = taps.withLatestFrom(a, b, c).sink { a, b, c in print(a, b, c) }
    /// ```
    ///
    /// **Demand:** as for ``withLatestFrom(_:resultSelector:)``.
    /// **Thread safety:** as for ``withLatestFrom(_:resultSelector:)``.
    public func withLatestFrom<Other1: Publisher, Other2: Publisher, Other3: Publisher>(
        _ other1: Other1, _ other2: Other2, _ other3: Other3
    )
        -> Publishers.WithLatestFrom<
            Self, Publishers.CombineLatest3<Other1, Other2, Other3>, (Other1.Output, Other2.Output, Other3.Output)
        >
    where Other1.Failure == Failure, Other2.Failure == Failure, Other3.Failure == Failure {
        Publishers.WithLatestFrom(upstream: self, other: other1.combineLatest(other2, other3)) { $1 }
    }
}

extension Publishers {
    /// A publisher that combines each value of its upstream with the latest value of another publisher.
    ///
    /// ```swift
    /// let combined = Publishers.WithLatestFrom(upstream: taps, other: text) { _, text in text }
    /// ```
    ///
    /// **Demand:** the downstream's demand goes upstream; `other` is asked for `.unlimited`. An upstream value
    /// that arrives before `other` has sent anything is dropped and replaced by a request for one more.
    /// **Thread safety:** see ``Publisher/withLatestFrom(_:resultSelector:)``.
    public struct WithLatestFrom<Upstream: Publisher, Other: Publisher, Output>: Publisher
    where Upstream.Failure == Other.Failure {
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are combined.
        public let upstream: Upstream
        /// The publisher whose latest value is used.
        public let other: Other
        /// Combines an upstream value with the latest value of `other`.
        public let resultSelector: (Upstream.Output, Other.Output) -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, other: Other, resultSelector: @escaping (Upstream.Output, Other.Output) -> Output
        ) {
            self.upstream = upstream
            self.other = other
            self.resultSelector = resultSelector
        }

        /// Attaches the subscriber: it receives its subscription first, then `other` and the upstream are
        /// subscribed, in that order.
        // Inlinable, so that the subscription is specialized in the caller (see Publishers.Map.receive(subscriber:)):
        // the trigger skeleton's generic decisions then cost no type-metadata lookups per value.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let selector = resultSelector
            TriggerSubscription(
                downstream: subscriber,
                operator: WithLatestFromStateMachine<Upstream.Output, Other.Output, Output, Failure>(),
                output: { selector($0.0, $0.1) }
            ).start(upstream: upstream, trigger: other)
        }
    }
}
