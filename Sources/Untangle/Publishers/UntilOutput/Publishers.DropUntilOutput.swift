extension Publisher {
    /// Ignores elements from the upstream publisher until it receives an element from a second publisher.
    ///
    /// ```swift
    /// let cancellable = readings.drop(untilOutputFrom: calibrationDone).sink { print($0) }
    /// ```
    ///
    /// The second publisher is asked for one value; after it, its subscription is released (not cancelled) and
    /// upstream elements pass through. If the second publisher completes before publishing a value, its completion
    /// (finished or failure) is published and the upstream is cancelled. The upstream's completion is published
    /// as is; it does not cancel the second publisher. These are Combine's rules.
    ///
    /// **Demand:** downstream requests pass straight to the upstream; elements dropped before the second publisher
    /// emits use up the demand that allowed them (as in Apple's Combine), and a dropped element the downstream did
    /// not request stops the program, as in Combine.
    /// **Thread safety:** the two publishers may deliver on different threads; the downstream sees one signal at a
    /// time. `request`/`cancel` may be called from any thread; no library lock is held during callouts.
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
    where Failure == P.Failure {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}

extension Publishers {
    /// A publisher that ignores elements from the upstream publisher until it receives an element from a second
    /// publisher.
    ///
    /// ```swift
    /// let afterCalibration = Publishers.DropUntilOutput(upstream: readings, other: calibrationDone)
    /// ```
    ///
    /// The downstream receives its subscription first; then the other publisher is subscribed to, then the upstream.
    ///
    /// **Demand:** see ``Publisher/drop(untilOutputFrom:)``; requests made before the upstream subscribes are
    /// forwarded when it does.
    /// **Thread safety:** see ``Publisher/drop(untilOutputFrom:)``.
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
    where Upstream.Failure == Other.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A publisher to monitor for its first emitted element.
        public let other: Other

        /// Creates a publisher that ignores elements from the upstream publisher until it receives an element from
        /// another publisher.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches the subscriber, then subscribes to `other` and to the upstream.
        // Inlinable, so that the subscription is specialized in the caller (see Publishers.Map.receive(subscriber:)):
        // the trigger skeleton's generic decisions then cost no type-metadata lookups per value.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
            TriggerSubscription(
                downstream: subscriber, operator: DropUntilOutputStateMachine<Output, Other.Output, Failure>(),
                output: { $0 }
            ).start(upstream: upstream, trigger: other)
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}
