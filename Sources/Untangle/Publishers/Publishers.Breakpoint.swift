#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Publisher {
    /// Raises a debugger signal (`SIGTRAP`) when a provided closure needs to stop the process in the debugger.
    ///
    /// Outside a debugger the signal stops the process, as in Combine.
    ///
    /// ```swift
    /// let cancellable = readings
    ///     .breakpoint(receiveOutput: { $0 < 0 })   // stop in the debugger on a negative reading
    ///     .sink { show($0) }
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** each closure runs on the thread of its event, with no lock held; the signal is raised on
    /// that thread.
    public func breakpoint(
        receiveSubscription: ((Subscription) -> Bool)? = nil,
        receiveOutput: ((Output) -> Bool)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
    ) -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(
            upstream: self, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion)
    }

    /// Raises a debugger signal upon receiving a failure.
    ///
    /// ```swift
    /// let cancellable = request.breakpointOnError().sink(receiveCompletion: { _ in }, receiveValue: { _ in })
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** as ``Publisher/breakpoint(receiveSubscription:receiveOutput:receiveCompletion:)``.
    public func breakpointOnError() -> Publishers.Breakpoint<Self> {
        breakpoint(receiveCompletion: { completion in
            if case .failure = completion { return true }
            return false
        })
    }
}

extension Publishers {
    /// A publisher that raises a debugger signal when a provided closure needs to stop the process in the debugger.
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/breakpoint(receiveSubscription:receiveOutput:receiveCompletion:)``.
    public struct Breakpoint<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that executes when the publisher receives a subscription, and can raise a debugger signal.
        public let receiveSubscription: ((Subscription) -> Bool)?
        /// A closure that executes when the publisher receives output from the upstream publisher, and can raise a
        /// debugger signal.
        public let receiveOutput: ((Upstream.Output) -> Bool)?
        /// A closure that executes when the publisher receives completion, and can raise a debugger signal.
        public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

        /// Creates a breakpoint publisher with the provided upstream publisher and breakpoint-raising closures.
        public init(
            upstream: Upstream,
            receiveSubscription: ((Subscription) -> Bool)? = nil,
            receiveOutput: ((Upstream.Output) -> Bool)? = nil,
            receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)? = nil
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.subscribe(BreakpointRelay(downstream: subscriber, breakpoint: self))
        }
    }
}

// Breakpoint keeps no state: like Combine's, its subscriber hands the upstream's own subscription to the downstream
// (so `request` and `cancel` go straight upstream) and relays every signal after asking the closure for it. With
// nothing to lock, it adds no lock and no callout of its own; the upstream's guarantees (serialized signals, cancel)
// reach the downstream unchanged.
private struct BreakpointRelay<Upstream: Publisher, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    let downstream: Downstream
    let breakpoint: Publishers.Breakpoint<Upstream>
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: Subscription) {
        if breakpoint.receiveSubscription?(subscription) == true { raise(SIGTRAP) }
        downstream.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        if breakpoint.receiveOutput?(input) == true { raise(SIGTRAP) }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        if breakpoint.receiveCompletion?(completion) == true { raise(SIGTRAP) }
        downstream.receive(completion: completion)
    }

    var description: String { "Breakpoint" }
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    var playgroundDescription: Any { description }
}
