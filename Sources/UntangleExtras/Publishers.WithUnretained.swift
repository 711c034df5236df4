import Untangle

extension Publisher {
    /// Pairs every value with `owner`, held weakly: no retain cycle through the subscription, and the stream
    /// finishes (cancelling this publisher) as soon as a value arrives after `owner` is gone.
    ///
    /// ```swift
    /// model.updates
    ///     .withUnretained(self)
    ///     .sink { owner, update in owner.render(update) }
    ///     .store(in: bag)
    /// ```
    ///
    /// **Demand:** the downstream's demand passes upstream one for one.
    /// **Thread safety:** `request` and `cancel` from any thread; the owner is loaded (strongly, for the duration of
    /// the delivery) on the delivering thread.
    public func withUnretained<Owner: AnyObject>(_ owner: Owner) -> Publishers.WithUnretained<Self, Owner> {
        Publishers.WithUnretained(upstream: self, owner: owner)
    }
}

extension Publishers {
    /// A publisher pairing its upstream's values with a weakly held owner; see `withUnretained(_:)`.
    ///
    /// ```swift
    /// let paired: Publishers.WithUnretained<Just<Int>, ViewModel> = Just(1).withUnretained(viewModel)
    /// ```
    ///
    /// **Demand:** one upstream value per downstream value.
    /// **Thread safety:** as the operator (any thread; downstream signals serialized).
    public struct WithUnretained<Upstream: Publisher, Owner: AnyObject>: Publisher {
        /// The owner (strong for the delivery) and the upstream value.
        public typealias Output = (Owner, Upstream.Output)
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are paired.
        public let upstream: Upstream
        private weak var owner: Owner?

        /// Creates the operator; `owner` is held weakly.
        public init(upstream: Upstream, owner: Owner) {
            self.upstream = upstream
            self.owner = owner
        }

        /// Subscribes `subscriber` through the operator.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let weakOwner = WeakBox(owner)
            upstream.subscribe(
                StepSubscription(
                    downstream: subscriber, name: "WithUnretained",
                    step: { value in
                        guard let owner = weakOwner.object else { return .finish }
                        return .emit((owner, value))
                    },
                    completion: { $0 }))
        }
    }
}

/// A weak reference a closure can capture.
private final class WeakBox<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object?) {
        self.object = object
    }
}
