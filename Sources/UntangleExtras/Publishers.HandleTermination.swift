import Untangle

extension Publisher {
    /// Runs `body` once when the subscription ends: right after the completion (finished or failed) was handed to
    /// the subscriber, or when the subscriber cancels. RxSwift's `do(onDispose:)` and `subscribe(onDisposed:)`.
    ///
    /// Combine's `handleEvents(receiveCompletion:receiveCancel:)` runs its closures before the completion goes
    /// downstream and needs two of them; RxSwift's dispose hook runs after the subscriber saw the end, whichever way
    /// it ended, and so does this one.
    ///
    /// ```swift
    /// let cancellable = api.upload(file)
    ///     .handleTermination { spinner.stop() }   // after success, failure or cancel
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** passed through, one upstream value per downstream value.
    /// **Thread safety:** `body` runs exactly once, with no library lock held, on the thread that delivered the
    /// completion or that cancelled.
    public func handleTermination(_ body: @escaping () -> Void) -> Publishers.HandleTermination<Self> {
        Publishers.HandleTermination(upstream: self, body: body)
    }
}

extension Publishers {
    /// A publisher that runs a closure when each subscription ends; see ``Untangle/Publisher/handleTermination(_:)``.
    ///
    /// ```swift
    /// let tracked = Publishers.HandleTermination(upstream: Just(1)) { print("ended") }
    /// ```
    ///
    /// **Demand:** passed through.
    /// **Thread safety:** as the operator.
    public struct HandleTermination<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose subscriptions are watched.
        public let upstream: Upstream
        let body: () -> Void

        /// Watches `upstream`'s subscriptions with `body`.
        public init(upstream: Upstream, body: @escaping () -> Void) {
            self.upstream = upstream
            self.body = body
        }

        /// Subscribes `subscriber`; `body` runs when that subscription ends.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // The step skeleton runs `onEnd` once, after unlocking: after the completion went downstream, or at cancel.
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "HandleTermination", onEnd: body, step: { .emit($0) },
                    completion: { $0 }))
        }
    }
}
