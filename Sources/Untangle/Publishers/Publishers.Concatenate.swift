import UntangleSync

extension Publisher {
    /// Appends the given elements after this publisher's elements: they are published once this publisher finishes.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher.append(3, 4).sink { print($0) }  // 1, 2, 3, 4
    /// ```
    ///
    /// If this publisher fails, the elements are not published.
    ///
    /// **Demand:** see ``Publishers/Concatenate``: demand the upstream did not use is carried over to the elements.
    /// **Thread safety:** see ``Publishers/Concatenate``.
    public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        append(Publishers.Sequence(sequence: elements))
    }

    /// Appends the elements of a sequence after this publisher's elements.
    ///
    /// ```swift
    /// let cancellable = [1, 2].publisher.append(3...5).sink { print($0) }  // 1, 2, 3, 4, 5
    /// ```
    ///
    /// The sequence is iterated only after this publisher finishes, and not at all if it fails.
    ///
    /// **Demand:** see ``Publishers/Concatenate``: demand the upstream did not use is carried over to the sequence.
    /// **Thread safety:** see ``Publishers/Concatenate``.
    public func append<S: Swift.Sequence>(_ elements: S)
        -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
    where Output == S.Element {
        append(Publishers.Sequence(sequence: elements))
    }

    /// Appends the output of another publisher after this publisher's elements.
    ///
    /// ```swift
    /// let cancellable = cachedItems.append(freshItems).sink { print($0) }
    /// ```
    ///
    /// `publisher` is subscribed to only once this publisher finishes; if this publisher fails, it is never
    /// subscribed to and the failure is published.
    ///
    /// **Demand:** see ``Publishers/Concatenate``: demand this publisher did not use is requested from `publisher`.
    /// **Thread safety:** see ``Publishers/Concatenate``.
    public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Concatenate(prefix: self, suffix: publisher)
    }

    /// Prefixes this publisher's output with the given elements.
    ///
    /// ```swift
    /// let cancellable = [3, 4].publisher.prepend(1, 2).sink { print($0) }  // 1, 2, 3, 4
    /// ```
    ///
    /// This publisher is subscribed to only after the elements have been published.
    ///
    /// **Demand:** see ``Publishers/Concatenate``: demand the elements did not use is requested from this publisher.
    /// **Thread safety:** see ``Publishers/Concatenate``.
    public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        prepend(Publishers.Sequence(sequence: elements))
    }

    /// Prefixes this publisher's output with the elements of a sequence.
    ///
    /// ```swift
    /// let cancellable = [3, 4].publisher.prepend(1...2).sink { print($0) }  // 1, 2, 3, 4
    /// ```
    ///
    /// This publisher is subscribed to only after the sequence's elements have been published.
    ///
    /// **Demand:** see ``Publishers/Concatenate``: demand the sequence did not use is requested from this publisher.
    /// **Thread safety:** see ``Publishers/Concatenate``.
    public func prepend<S: Swift.Sequence>(_ elements: S)
        -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
    where Output == S.Element {
        prepend(Publishers.Sequence(sequence: elements))
    }

    /// Prefixes this publisher's output with the output of another publisher.
    ///
    /// ```swift
    /// let cancellable = liveUpdates.prepend(initialSnapshot).sink { print($0) }
    /// ```
    ///
    /// This publisher is subscribed to only once `publisher` finishes; if `publisher` fails, this publisher is never
    /// subscribed to and the failure is published.
    ///
    /// **Demand:** see ``Publishers/Concatenate``: demand `publisher` did not use is requested from this publisher.
    /// **Thread safety:** see ``Publishers/Concatenate``.
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }
}

extension Publishers {
    /// A publisher that emits all of one publisher's elements before those from another publisher.
    ///
    /// ```swift
    /// let all = Publishers.Concatenate(prefix: [1, 2].publisher, suffix: [3].publisher)  // 1, 2, 3
    /// ```
    ///
    /// The suffix is subscribed to only after the prefix finishes (each subscription subscribes afresh). A failure of
    /// the prefix is published at once and the suffix is never subscribed to; the suffix's completion is the
    /// concatenation's.
    ///
    /// **Demand:** downstream requests go to the publisher currently subscribed (`request(.none)` too, as in
    /// Combine). Demand is carried over exactly: whatever the downstream requested (or returned from `receive(_:)`)
    /// that the prefix did not use is requested from the suffix when its subscription arrives; requests made between
    /// the two are added to it. A prefix value sent without demand is dropped. The suffix publisher is released once
    /// it is subscribed to, or when the concatenation is cancelled or fails before.
    /// **Thread safety:** `request` and `cancel` may be called from any thread. The downstream sees the prefix's
    /// signals, then the suffix's, one at a time (the suffix starts only after the prefix's completion). No library
    /// lock is held while calling an upstream or the downstream; cancel cancels whichever publisher is subscribed.
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
    where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Suffix.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Suffix.Failure

        /// The publisher to republish, in its entirety, before republishing elements from `suffix`.
        public let prefix: Prefix

        /// The publisher to republish only after `prefix` finishes.
        public let suffix: Suffix

        /// Creates a publisher that emits all of one publisher's elements before those from another publisher.
        public init(prefix: Prefix, suffix: Suffix) {
            self.prefix = prefix
            self.suffix = suffix
        }

        /// Attaches the subscriber: the prefix is subscribed to now, the suffix once the prefix finishes.
        public func receive<S: Subscriber>(subscriber: S) where Suffix.Failure == S.Failure, Suffix.Output == S.Input {
            let concatenation = ConcatenateSubscription(downstream: subscriber, suffix: suffix)
            prefix.subscribe(ConcatenateSubscription.PrefixSubscriber(concatenation: concatenation))
        }
    }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

/// The subscription of a ``Publishers/Concatenate``: one upstream at a time, with the downstream's outstanding
/// demand counted under a lock so that what the prefix did not use is requested from the suffix.
///
/// **Demand:** see ``Publishers/Concatenate``.
/// **Thread safety:** `request`/`cancel` from any thread; upstream signals are serialized by the upstreams'
/// contract and by the suffix starting only after the prefix completed.
private final class ConcatenateSubscription<Downstream: Subscriber, Suffix: Publisher>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Suffix.Output == Downstream.Input, Suffix.Failure == Downstream.Failure {
    private enum Stage {
        case prefix
        /// The prefix finished; the suffix's subscription has not arrived yet.
        case awaitingSuffix
        case suffix
        case ended
    }

    private struct State {
        var stage = Stage.prefix
        /// The current stage's upstream subscription.
        var upstream: Subscription?
        var downstream: Downstream?
        /// Requested by the downstream and not yet delivered.
        var demand = Subscribers.Demand.none
        /// Kept until it is subscribed to, or until the concatenation ends without needing it (cancel, failure).
        var suffix: Suffix?
    }

    private enum SubscribedDecision {
        case passOn(Downstream)
        case request(Subscribers.Demand)
        case reject
    }

    private enum CompletedDecision {
        case subscribeSuffix(Suffix?, released: Subscription?)
        case deliver(Downstream, released: (Subscription?, Suffix?))
        case ignore
    }

    private let state: LockedBox<State>

    init(downstream: Downstream, suffix: Suffix) {
        state = LockedBox(tracking: State(downstream: downstream, suffix: suffix))
    }

    // `request(.none)` is tolerated and forwarded, as in Combine.
    func request(_ demand: Subscribers.Demand) {
        let upstream = state.withCriticalSection { state -> Subscription? in
            guard state.stage != .ended else { return nil }
            state.demand += demand
            return state.upstream
        }
        // Between the prefix's completion and the suffix's subscription there is no upstream: the demand waits in
        // `state.demand` and the suffix is asked for it when it subscribes.
        CalloutCheck.assertNoLockHeld("concatenate requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let (upstream, downstream, suffix) = state.withCriticalSection {
            state -> (Subscription?, Downstream?, Suffix?) in
            state.stage = .ended
            return (state.upstream.take(), state.downstream.take(), state.suffix.take())
        }
        CalloutCheck.assertNoLockHeld("concatenate cancelling upstream")
        upstream?.cancel()
        withExtendedLifetime((downstream, suffix)) {}
    }

    fileprivate func upstream(isSuffix: Bool, subscribed subscription: Subscription) {
        let decision = state.withCriticalSection { state -> SubscribedDecision in
            switch (state.stage, isSuffix) {
            case (.prefix, false) where state.upstream == nil:
                state.upstream = subscription
                return state.downstream.map { .passOn($0) } ?? .reject
            case (.awaitingSuffix, true):
                state.stage = .suffix
                state.upstream = subscription
                return .request(state.demand)
            default:
                return .reject
            }
        }
        CalloutCheck.assertNoLockHeld("concatenate passing on a subscription")
        switch decision {
        case .passOn(let downstream):
            downstream.receive(subscription: self)
        case .request(let demand):
            if demand > .none {
                subscription.request(demand)
            }
        case .reject:
            subscription.cancel()
        }
    }

    // As in Combine, a prefix value is passed on only once the prefix's subscription arrived and with demand left
    // (otherwise it is dropped and `.none` returned). The suffix is asked for exactly the demand left when it
    // subscribes, so its values are passed on as they come.
    fileprivate func upstream(isSuffix: Bool, received value: Downstream.Input) -> Subscribers.Demand {
        let downstream = state.withCriticalSection { state -> Downstream? in
            guard state.stage == (isSuffix ? .suffix : .prefix) else { return nil }
            if !isSuffix {
                guard state.upstream != nil, state.demand > .none else { return nil }
            }
            if state.demand > .none {
                state.demand -= 1
            }
            return state.downstream
        }
        guard let downstream else { return .none }
        CalloutCheck.assertNoLockHeld("concatenate delivering a value")
        let more = downstream.receive(value)
        if more > .none {
            state.withCriticalSection { state in
                if state.stage != .ended {
                    state.demand += more
                }
            }
        }
        // The current upstream counts the returned demand itself.
        return more
    }

    fileprivate func upstream(isSuffix: Bool, completed completion: Subscribers.Completion<Downstream.Failure>) {
        let decision = state.withCriticalSection { state -> CompletedDecision in
            guard state.stage == (isSuffix ? .suffix : .prefix) else { return .ignore }
            let released = state.upstream.take()
            if !isSuffix, case .finished = completion {
                state.stage = .awaitingSuffix
                return .subscribeSuffix(state.suffix.take(), released: released)
            }
            state.stage = .ended
            let suffix = state.suffix.take()
            return state.downstream.take().map { .deliver($0, released: (released, suffix)) } ?? .ignore
        }
        CalloutCheck.assertNoLockHeld("concatenate completing")
        switch decision {
        case .subscribeSuffix(let suffix, _):
            suffix?.subscribe(SuffixSubscriber(concatenation: self))
        case .deliver(let downstream, _):
            downstream.receive(completion: completion)
        case .ignore:
            break
        }
    }

    var description: String { "Concatenate" }
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    var playgroundDescription: Any { description }

    /// The subscriber given to the prefix (`Side == PrefixSide`) or to the suffix (`Side == SuffixSide`): two types,
    /// as in Combine, that share the concatenation's identity and presentation.
    struct SideSubscriber<Side: ConcatenationSide>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        typealias Input = Downstream.Input
        typealias Failure = Downstream.Failure

        let concatenation: ConcatenateSubscription

        var combineIdentifier: CombineIdentifier { concatenation.combineIdentifier }

        func receive(subscription: Subscription) {
            concatenation.upstream(isSuffix: Side.isSuffix, subscribed: subscription)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            concatenation.upstream(isSuffix: Side.isSuffix, received: input)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            concatenation.upstream(isSuffix: Side.isSuffix, completed: completion)
        }

        var description: String { concatenation.description }
        var customMirror: Mirror { concatenation.customMirror }
        var playgroundDescription: Any { concatenation.playgroundDescription }
    }

    typealias PrefixSubscriber = SideSubscriber<PrefixSide>
    typealias SuffixSubscriber = SideSubscriber<SuffixSide>
}

/// Which publisher of a concatenation a ``ConcatenateSubscription/SideSubscriber`` listens to.
private protocol ConcatenationSide {
    static var isSuffix: Bool { get }
}

/// The publisher that runs first.
private enum PrefixSide: ConcatenationSide {
    static var isSuffix: Bool { false }
}

/// The publisher subscribed to once the prefix finished.
private enum SuffixSide: ConcatenationSide {
    static var isSuffix: Bool { true }
}
