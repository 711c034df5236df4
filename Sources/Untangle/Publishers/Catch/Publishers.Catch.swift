extension Publisher {
    /// Handles errors from an upstream publisher by replacing it with another publisher.
    ///
    /// When the upstream fails, `handler` is called with the error and its publisher takes over: it receives the
    /// downstream's outstanding demand, and its values and completion are passed on.
    ///
    /// As in Combine, the subscriber gets its subscription when the upstream's subscription arrives; completions
    /// before it are ignored; a value the subscriber did not request, or a second failure of the upstream, traps.
    ///
    /// ```swift
    /// let cancellable = fetchUser()
    ///     .catch { _ in Just(User.guest) }
    ///     .sink { print($0) }
    /// ```
    ///
    /// **Demand:** outstanding demand (requested, not yet delivered) carries over to the replacement exactly;
    /// demand returned from `receive(_:)` goes back to the current upstream; `request(.none)` is passed through.
    /// **Thread safety:** `request`/`cancel` may be called from any thread; the handler runs with no lock held, on
    /// the thread that delivered the failure; a cancel while it runs means no replacement is subscribed; values
    /// from the failed upstream after the switch are ignored; nothing is delivered after a cancel or completion.
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P)
        -> Publishers.Catch<Self, P>
    where Output == P.Output {
        return Publishers.Catch(upstream: self, handler: handler)
    }

    /// Handles errors from an upstream publisher by either replacing it with another publisher or throwing a new
    /// error.
    ///
    /// ```swift
    /// let cancellable = load()
    ///     .tryCatch { error -> Just<Data> in
    ///         guard error.isRecoverable else { throw error }
    ///         return Just(Data())
    ///     }
    ///     .sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    /// ```
    ///
    /// **Demand:** as ``Publisher/catch(_:)``.
    /// **Thread safety:** as ``Publisher/catch(_:)``; a thrown error ends the stream with that error.
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P)
        -> Publishers.TryCatch<Self, P>
    where Output == P.Output {
        return Publishers.TryCatch(upstream: self, handler: handler)
    }
}

extension Publishers {
    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher with another
    /// publisher.
    ///
    /// **Demand:** outstanding demand carries over to the replacement exactly.
    /// **Thread safety:** see ``Publisher/catch(_:)``.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish: the replacement's.
        public typealias Failure = NewPublisher.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// A closure that accepts the upstream failure as input and returns a publisher to replace the upstream.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that handles errors from an upstream publisher by replacing the failed publisher with
        /// another publisher.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, NewPublisher.Failure == S.Failure {
            let handler = self.handler
            // Generation 0 is the upstream; generation 1 is the replacement, whose failure is final: its completion
            // goes to the downstream through `replacementCompleted` instead of the failover path. The handler runs
            // when the failure is decided (outside any lock), before the replacement is subscribed.
            let subscription = ReplacingUpstreamSubscription<Output, Upstream.Failure, S>(
                downstream: subscriber, behavior: catchBehavior(name: "Catch")
            ) { error in
                let replacement = handler(error)
                return .replace { inner in
                    replacement.subscribe(ReplacementForwarder(inner: inner, mapCompletion: { $0 }))
                }
            }
            subscription.start { upstream.subscribe($0) }
        }
    }

    /// A publisher that handles errors from an upstream publisher by either replacing the failed publisher with
    /// another publisher or producing a new error.
    ///
    /// **Demand:** outstanding demand carries over to the replacement exactly.
    /// **Thread safety:** see ``Publisher/tryCatch(_:)``.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// Any error: the replacement's, or the one the handler threw.
        public typealias Failure = Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// An error-throwing closure that accepts the upstream failure and returns a replacement publisher.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates the publisher.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            let handler = self.handler
            let subscription = ReplacingUpstreamSubscription<Output, Upstream.Failure, S>(
                downstream: subscriber, behavior: catchBehavior(name: "TryCatch")
            ) { error in
                do {
                    let replacement = try handler(error)
                    return .replace { inner in
                        replacement.subscribe(
                            ReplacementForwarder(inner: inner, mapCompletion: { $0.mapFailure { $0 as Error } }))
                    }
                } catch {
                    return .complete(.failure(error))
                }
            }
            subscription.start { upstream.subscribe($0) }
        }
    }
}

/// Combine's `catch` and `tryCatch`: completions before the upstream's subscription are dropped, a second failure of
/// the upstream traps, demand returned from `receive(_:)` goes back to the upstream as the return value.
private func catchBehavior<Input, UpstreamFailure, Downstream>(
    name: String
) -> ReplacingUpstreamSubscription<Input, UpstreamFailure, Downstream>.Behavior {
    .init(
        name: name, mirrorsDownstreamAndDemand: true, earlyCompletion: .ignored, repeatedFailure: .trapped,
        returnedDemand: .returned)
}

/// Subscribes a replacement publisher (whose failure is final) to the replacing subscription: its values go
/// through generation bookkeeping like the upstream's, and its completion ends the stream as is.
private struct ReplacementForwarder<Input, UpstreamFailure: Error, Downstream: Subscriber, Failure: Error>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Input {
    let inner: ReplacingUpstreamSubscription<Input, UpstreamFailure, Downstream>.Inner
    let mapCompletion: (Subscribers.Completion<Failure>) -> Subscribers.Completion<Downstream.Failure>
    var combineIdentifier: CombineIdentifier { inner.combineIdentifier }

    func receive(subscription: Subscription) { inner.receive(subscription: subscription) }
    func receive(_ input: Input) -> Subscribers.Demand { inner.receive(input) }
    func receive(completion: Subscribers.Completion<Failure>) {
        inner.owner.replacementCompleted(mapCompletion(completion), generation: inner.generation)
    }
    var description: String { inner.description }
    var customMirror: Mirror { inner.customMirror }
    var playgroundDescription: Any { inner.playgroundDescription }
}
