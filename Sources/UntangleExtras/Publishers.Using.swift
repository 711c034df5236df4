import Untangle

extension AnyPublisher {
    /// A publisher whose every subscription creates a resource, builds its upstream from it, and releases it (by
    /// cancelling it) when the subscription ends: on cancel, or once the completion was handed downstream.
    /// RxSwift's `Observable.using`.
    ///
    /// ```swift
    /// let lines = AnyPublisher<String, Error>.using(
    ///     { FileHandleResource(path) },              // a Cancellable that closes the file
    ///     { file in file.lines.publisher.setFailureType(to: Error.self) })
    /// ```
    ///
    /// **Demand:** the downstream's demand passes to the built publisher one for one.
    /// **Thread safety:** the factories run on the subscribing thread; the resource's `cancel()` runs exactly
    /// once, outside every lock, on the thread that ends the subscription.
    public static func using<Resource: Cancellable, Upstream: Publisher>(
        _ makeResource: @escaping () -> Resource, _ makePublisher: @escaping (Resource) -> Upstream
    ) -> AnyPublisher<Output, Failure> where Upstream.Output == Output, Upstream.Failure == Failure {
        Publishers.Using(makeResource, makePublisher).eraseToAnyPublisher()
    }
}

extension Publishers {
    /// A publisher binding a resource to each subscription's lifetime; see `AnyPublisher.using(_:_:)`.
    ///
    /// ```swift
    /// let publisher = Publishers.Using({ Connection() }, { $0.messages })
    /// ```
    ///
    /// The resource is created per subscription and released by its `cancel()`, exactly once: when the subscriber
    /// cancels, or right after the completion (the built publisher's, or an early one) was handed to the subscriber.
    ///
    /// **Demand:** one upstream value per downstream value.
    /// **Thread safety:** as the operator (any thread; downstream signals serialized).
    public struct Using<Resource: Cancellable, Upstream: Publisher>: Publisher {
        /// The built publisher's output.
        public typealias Output = Upstream.Output
        /// The built publisher's failure.
        public typealias Failure = Upstream.Failure

        let makeResource: () -> Resource
        let makePublisher: (Resource) -> Upstream

        /// Creates the publisher from a resource factory and a publisher factory.
        public init(_ makeResource: @escaping () -> Resource, _ makePublisher: @escaping (Resource) -> Upstream) {
            self.makeResource = makeResource
            self.makePublisher = makePublisher
        }

        /// Creates a resource for `subscriber` and subscribes it to the publisher built from it.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let resource = makeResource()
            let upstream = makePublisher(resource)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "Using", onEnd: { resource.cancel() }, step: { .emit($0) },
                    completion: { $0 }))
        }
    }
}
