import Untangle

extension Publisher {
    /// Shares one subscription to this publisher among all subscribers and replays the latest `count` values to
    /// each new subscriber. RxSwift's `share(replay:)` with its default `.whileConnected` scope.
    ///
    /// The first subscriber connects to this publisher; the last one to cancel disconnects it and empties the
    /// replay buffer. When this publisher completes, every current subscriber receives the completion (after its
    /// waiting values) and the share forgets the connection: the next subscriber connects again, with an empty
    /// buffer. Compare Combine's `share()`, which replays nothing (a late subscriber misses earlier values) and
    /// keeps a completed subject.
    ///
    /// ```swift
    /// let user = api.currentUser().share(replay: 1)
    /// let a = user.sink(receiveCompletion: { _ in }) { print("a", $0) }
    /// let b = user.sink(receiveCompletion: { _ in }) { print("b", $0) }   // gets the latest user at once
    /// ```
    ///
    /// **Demand:** this publisher is asked for `.unlimited` once connected. Each subscriber receives replayed and
    /// live values only within its own demand; beyond it, the newest `count` values it has not received wait for
    /// its demand (older ones are dropped; with `count == 0` nothing waits, as with `PassthroughSubject`).
    /// **Thread safety:** subscribing, cancelling and requesting may happen on any threads; each subscriber
    /// receives one signal at a time, and every subscriber sees the values in this publisher's order. Replayed
    /// values are delivered outside every lock, on the thread that subscribes or requests.
    ///
    /// - Precondition: `count >= 0`.
    public func share(replay count: Int) -> Publishers.ShareReplay<Self> {
        Publishers.ShareReplay(upstream: self, replay: count)
    }
}

extension Publishers {
    /// A publisher that shares one subscription to its upstream and replays the latest values to new subscribers.
    ///
    /// It is a class so that every subscriber shares the same connection; equality is identity, as for
    /// `Publishers.Share`.
    ///
    /// ```swift
    /// let shared = Publishers.ShareReplay(upstream: prices, replay: 1)
    /// ```
    ///
    /// **Demand:** see ``Publisher/share(replay:)``.
    /// **Thread safety:** see ``Publisher/share(replay:)``.
    public final class ShareReplay<Upstream: Publisher>: Publisher, Equatable, @unchecked Sendable {
        // @unchecked Sendable: the stored properties are immutable; all mutable state is in the core's lock.

        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The shared publisher.
        public let upstream: Upstream
        /// How many of the latest values a new subscriber receives.
        public let replay: Int

        @usableFromInline let core: ShareReplayCore<Upstream>

        /// Creates the publisher.
        ///
        /// - Precondition: `replay >= 0`.
        public init(upstream: Upstream, replay: Int) {
            precondition(replay >= 0, "share(replay:): the replay count must not be negative (got \(replay))")
            self.upstream = upstream
            self.replay = replay
            core = ShareReplayCore(upstream: upstream, replay: replay)
        }

        /// Attaches the subscriber: it receives its subscription and the replayed values (as demand allows), and
        /// connects the upstream if it is the first.
        // Inlinable, so that the subscription is specialized in the caller (see `ShareReplayCore`): the per-value path
        // then costs no type-metadata lookups.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            core.subscribe(subscriber)
        }

        /// Identity: two values are equal if they are the same shared publisher.
        public static func == (lhs: ShareReplay, rhs: ShareReplay) -> Bool {
            lhs === rhs
        }
    }
}
