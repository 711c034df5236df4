extension Publisher {
    /// Performs the specified closures when publisher events occur.
    ///
    /// ```swift
    /// let cancellable = search(term)
    ///     .handleEvents(receiveSubscription: { _ in spinner.start() },
    ///                   receiveCompletion: { _ in spinner.stop() },
    ///                   receiveCancel: { spinner.stop() })
    ///     .sink { show($0) }
    /// ```
    ///
    /// `receiveRequest` sees every demand: the downstream's requests (also those made before the upstream's
    /// subscription arrived, which are not forwarded) and the non-zero demand it returns from `receive(_:)`. Each
    /// closure runs before the event it observes is passed on. After a completion or a cancel no closure runs again.
    ///
    /// **Demand:** passed through unchanged (`request(.none)` is forwarded).
    /// **Thread safety:** each closure runs on the thread of the event it observes, with no lock held:
    /// `receiveOutput`/`receiveCompletion` on the upstream's delivering thread (one at a time), `receiveRequest` and
    /// `receiveCancel` on the thread that requests or cancels (possibly concurrently with delivery).
    /// `receiveCancel` runs at most once; after the completion or `cancel()` the subscriber is released and hears
    /// nothing more.
    public func handleEvents(
        receiveSubscription: ((Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(
            upstream: self, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion, receiveCancel: receiveCancel, receiveRequest: receiveRequest)
    }
}

extension Publishers {
    /// A publisher that performs the specified closures when publisher events occur.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/handleEvents(receiveSubscription:receiveOutput:receiveCompletion:receiveCancel:receiveRequest:)``.
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that executes when the publisher receives the subscription from the upstream publisher.
        public var receiveSubscription: ((Subscription) -> Void)?
        /// A closure that executes when the publisher receives a value from the upstream publisher.
        public var receiveOutput: ((Upstream.Output) -> Void)?
        /// A closure that executes when the upstream publisher finishes normally or terminates with an error.
        public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?
        /// A closure that executes when the downstream receiver cancels publishing.
        public var receiveCancel: (() -> Void)?
        /// A closure that executes when the publisher receives a request for more elements.
        public var receiveRequest: ((Subscribers.Demand) -> Void)?

        /// Creates a publisher that runs the given closures on the events they observe.
        public init(
            upstream: Upstream,
            receiveSubscription: ((Subscription) -> Void)? = nil,
            receiveOutput: ((Output) -> Void)? = nil,
            receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
            receiveCancel: (() -> Void)? = nil,
            receiveRequest: ((Subscribers.Demand) -> Void)?
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.receiveCancel = receiveCancel
            self.receiveRequest = receiveRequest
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            // The demand the downstream returns from `receive(_:)` is reported only when it is not `.none`.
            let returnedDemand = receiveRequest.map { handler in
                { (demand: Subscribers.Demand) in if demand != .none { handler(demand) } }
            }
            upstream.subscribe(
                EventsSubscription(
                    downstream: subscriber, name: "HandleEvents",
                    handlers: EventHandlers(
                        subscription: receiveSubscription, output: receiveOutput, completion: receiveCompletion,
                        cancel: receiveCancel, request: receiveRequest, returnedDemand: returnedDemand),
                    lifetime: .untilTermination))
        }
    }
}
