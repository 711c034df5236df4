import Untangle

extension Publisher {
    /// Splits the values into groups by key: each new key produces a ``GroupedPublisher`` (with that `key`) that
    /// publishes the values with that key. RxSwift's `groupBy(keySelector:)`.
    ///
    /// ```swift
    /// let cancellable = events.groupBy { $0.userID }.sink { group in
    ///     group.collect(.byTime(queue, 1)).sink { batch in upload(group.key, batch) }.store(in: &bag)
    /// }
    /// ```
    ///
    /// - A group buffers its values from its creation until its one subscriber requests them; nothing is lost
    ///   between the group's delivery and the subscription to it. A second subscriber to a group just finishes.
    /// - A group whose subscriber cancels is forgotten: a later value with its key opens a new group.
    /// - When the upstream finishes, every group finishes after its buffered values, then the outer publisher;
    ///   a failure fails every group and the outer publisher.
    /// - The upstream stays subscribed while the outer subscriber or any subscribed group is live. When the outer
    ///   subscriber cancels, groups nobody has subscribed to yet finish (after their buffered values), and values
    ///   of new keys are dropped.
    ///
    /// **Demand:** the upstream is asked for `.unlimited`: like RxSwift, groupBy does not apply backpressure to its
    /// source, because one slow group would otherwise stall all the others. The outer subscriber's demand counts
    /// groups (new groups beyond it wait); each group's subscriber's demand counts its values (values beyond it
    /// wait). Memory therefore grows with values that nobody requests: subscribe to every group, or cancel it.
    /// **Thread safety:** `keySelector` runs on the upstream's delivering thread, outside every lock. The outer
    /// subscriber and each group's subscriber receive one signal at a time; groups are independent and may be
    /// delivered to concurrently on different threads.
    public func groupBy<Key: Hashable>(_ keySelector: @escaping (Output) -> Key)
        -> Publishers.GroupBy<Self, Key>
    {
        return Publishers.GroupBy(upstream: self, keySelector: keySelector)
    }
}

extension Publishers {
    /// A publisher that splits its upstream's values into groups by key.
    ///
    /// ```swift
    /// let byRoom = Publishers.GroupBy(upstream: messages) { $0.room }
    /// ```
    ///
    /// **Demand:** see ``Publisher/groupBy(_:)``.
    /// **Thread safety:** see ``Publisher/groupBy(_:)``.
    public struct GroupBy<Upstream: Publisher, Key: Hashable>: Publisher {
        /// The groups.
        public typealias Output = GroupedPublisher<Key, Upstream.Output, Upstream.Failure>
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are grouped.
        public let upstream: Upstream
        /// Computes each value's key.
        public let keySelector: (Upstream.Output) -> Key

        /// Creates the publisher.
        public init(upstream: Upstream, keySelector: @escaping (Upstream.Output) -> Key) {
            self.upstream = upstream
            self.keySelector = keySelector
        }

        /// Attaches the subscriber; it receives its subscription when the upstream's arrives.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(GroupBySubscription<Upstream, Key, S>(downstream: subscriber, keySelector: keySelector))
        }
    }
}
