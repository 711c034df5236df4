extension Publisher {
    /// Combines elements from this publisher with those from another publisher of the same type, delivering an
    /// interleaved sequence of elements.
    ///
    /// Where both publishers have the same type, Combine picks this overload over the generic `merge(with:)`, so
    /// the result is a ``Publishers/MergeMany`` (which `merge(with:)` extends without nesting), as there.
    ///
    /// ```swift
    /// let clicks = PassthroughSubject<String, Never>()
    /// let keys = PassthroughSubject<String, Never>()
    /// let cancellable = clicks.merge(with: keys).sink { print($0) }
    /// clicks.send("click")   // click
    /// keys.send("key")       // key
    /// ```
    ///
    /// **Demand:** as ``Publishers/MergeMany``: each downstream request is forwarded to both publishers.
    /// **Thread safety:** as ``Publishers/MergeMany``: both may deliver concurrently; the downstream receives one value
    /// at a time.
    public func merge(with other: Self) -> Publishers.MergeMany<Self> {
        Publishers.MergeMany(self, other)
    }
}

extension Publishers {
    /// A publisher created by applying the merge function to an arbitrary number of upstream publishers.
    ///
    /// ```swift
    /// let merged = Publishers.MergeMany(clicks, keys, timerTicks)
    /// ```
    ///
    /// Finishes when every upstream has finished; fails, cancelling the others, as soon as one fails. With no
    /// upstreams it finishes at once.
    ///
    /// **Demand:** each downstream request is forwarded to every upstream; values beyond the downstream's demand
    /// wait (in arrival order) until it asks, so nothing the upstreams were allowed to send is lost.
    /// **Thread safety:** the upstreams may deliver concurrently on any threads; the downstream receives one value
    /// at a time, in the order the merge accepted them. `request`/`cancel` may be called from any thread; cancel
    /// cancels every upstream.
    public struct MergeMany<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publishers that this publisher receives elements from.
        public let publishers: [Upstream]

        /// Creates a publisher created by applying the merge function to an arbitrary number of upstream publishers.
        public init(_ upstream: Upstream...) {
            publishers = upstream
        }

        /// Creates a publisher created by applying the merge function to a sequence of upstream publishers.
        public init<S: Swift.Sequence>(_ upstream: S) where Upstream == S.Element {
            publishers = Array(upstream)
        }

        /// Attaches the subscriber to the merge of all the publishers.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            let publishers = self.publishers
            MergeSubscription.subscribe(subscriber, upstreamCount: publishers.count) { inner in
                for (index, publisher) in publishers.enumerated() {
                    publisher.subscribe(inner(index))
                }
            }
        }

        /// Adds one more publisher to the merge.
        public func merge(with other: Upstream) -> Publishers.MergeMany<Upstream> {
            Publishers.MergeMany(publishers + [other])
        }
    }
}

extension Publishers.MergeMany: Equatable where Upstream: Equatable {}
