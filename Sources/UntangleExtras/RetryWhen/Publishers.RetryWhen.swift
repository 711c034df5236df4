import Untangle

extension Publisher {
    /// Resubscribes to this publisher after a failure when the trigger publisher built from the error stream emits.
    /// RxSwift's `retry(when:)` (formerly `retryWhen`).
    ///
    /// For each subscriber, `handler` receives the stream of this publisher's failures and returns a trigger:
    /// - each trigger value after a failure starts a new attempt (values while an attempt runs are ignored);
    /// - the trigger finishing ends the result: at once with `.finished` if a failure was waiting for it (as in
    ///   RxSwift), or, if an attempt is running, when that attempt ends (its failure then fails the result);
    /// - the trigger failing fails the result with that error (this is how a handler gives up).
    ///
    /// ```swift
    /// let cancellable = api.fetch()
    ///     .retry(when: { errors in
    ///         errors.setFailureType(to: APIError.self)
    ///             .flatMap { error in error.isTransient
    ///                 ? Just(()).setFailureType(to: APIError.self).delay(for: 1, scheduler: queue).eraseToAnyPublisher()
    ///                 : Fail(error: error).eraseToAnyPublisher() }
    ///     })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// The error stream ignores demand like a `PassthroughSubject`: a handler must keep demand open on it (any
    /// `flatMap` without `maxPublishers`, `map`, `delay`... do). Failures of this publisher never reach the
    /// downstream directly.
    ///
    /// **Demand:** the downstream's outstanding demand (requested minus received) is requested from each new
    /// attempt; later requests go to the current attempt. The trigger is asked for `.unlimited`.
    /// **Thread safety:** attempts and the trigger may deliver on any threads; the downstream receives one signal
    /// at a time. `handler` runs once per subscriber, on the subscribing thread. `request`/`cancel` may be called
    /// from any thread; cancel cancels the running attempt and the trigger.
    public func retry<Trigger: Publisher>(
        when handler: @escaping (AnyPublisher<Failure, Never>) -> Trigger
    ) -> Publishers.RetryWhen<Self, Trigger> where Trigger.Failure == Failure {
        Publishers.RetryWhen(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// A publisher that resubscribes to its upstream after a failure when a trigger emits.
    ///
    /// ```swift
    /// let retried = Publishers.RetryWhen(upstream: fetch) { errors in errors.prefix(3).setFailureType(to: MyError.self) }
    /// ```
    ///
    /// **Demand:** see ``Publisher/retry(when:)``.
    /// **Thread safety:** see ``Publisher/retry(when:)``.
    public struct RetryWhen<Upstream: Publisher, Trigger: Publisher>: Publisher
    where Trigger.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher to retry.
        public let upstream: Upstream
        /// Makes the trigger from the error stream, once per subscriber.
        public let handler: (AnyPublisher<Upstream.Failure, Never>) -> Trigger

        /// Creates the publisher.
        public init(upstream: Upstream, handler: @escaping (AnyPublisher<Upstream.Failure, Never>) -> Trigger) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber: it receives its subscription, then the trigger and the first attempt are
        /// subscribed.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            RetryWhenSubscription(upstream: upstream, downstream: subscriber).start(handler: handler)
        }
    }
}
