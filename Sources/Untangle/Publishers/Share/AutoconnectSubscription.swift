import UntangleSync

/// What an ``AutoconnectSubscription`` reports to its autoconnect publisher.
protocol AutoconnectParent: AnyObject {
    /// A counted subscriber cancelled or received its completion.
    func subscriberRemoved()
}

/// The subscription an autoconnect publisher hands each subscriber: it passes requests to the upstream's
/// subscription, and tells the autoconnect (once) when the subscriber leaves by cancelling or by completing, so that
/// the last one to leave disconnects the upstream. Its ``Inner`` is the subscriber given to the upstream.
///
/// The subscription does not reference the downstream (the inner does), so a subscriber that keeps its subscription
/// forms no cycle that outlives a cancel or a completion.
///
/// **Demand:** passed through unchanged.
/// **Thread safety:** `request`/`cancel` may be called from any thread; the upstream's signals are passed on with no
/// lock held. It holds its autoconnect strongly while subscribed, so a `share()` stays alive as long as it has
/// subscribers even if nothing else references it.
final class AutoconnectSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    private struct State {
        var upstream: Subscription?
        var parent: AutoconnectParent?
    }

    private let state: LockedBox<State>
    let description: String

    init(parent: AutoconnectParent, name: String) {
        description = name
        state = LockedBox(tracking: State(parent: parent))
    }

    /// Returns false if the subscription already ended (the upstream subscription must then be cancelled).
    fileprivate func attach(_ upstream: Subscription) -> Bool {
        state.withCriticalSection { state -> Bool in
            guard state.parent != nil, state.upstream == nil else { return false }
            state.upstream = upstream
            return true
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        let upstream = state.withCriticalSection { $0.upstream }
        CalloutCheck.assertNoLockHeld("autoconnect requesting upstream")
        upstream?.request(demand)
    }

    func cancel() {
        let ended = leave()
        CalloutCheck.assertNoLockHeld("autoconnect cancelling upstream")
        ended.upstream?.cancel()
        ended.parent?.subscriberRemoved()
    }

    /// Ends the subscription once: the returned parent is non-nil only for the first caller.
    fileprivate func leave() -> (upstream: Subscription?, parent: AutoconnectParent?) {
        let ended = state.withCriticalSection { state -> State in
            defer { state = State() }
            return state
        }
        return (ended.upstream, ended.parent)
    }

    /// The subscriber given to the upstream on behalf of one downstream.
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible {
        typealias Input = Downstream.Input
        typealias Failure = Downstream.Failure

        let downstream: Downstream
        let subscription: AutoconnectSubscription

        var combineIdentifier: CombineIdentifier { downstream.combineIdentifier }

        func receive(subscription upstream: Subscription) {
            guard subscription.attach(upstream) else {
                CalloutCheck.assertNoLockHeld("autoconnect cancelling a late upstream subscription")
                upstream.cancel()
                return
            }
            downstream.receive(subscription: subscription)
        }

        func receive(_ input: Downstream.Input) -> Subscribers.Demand {
            downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Downstream.Failure>) {
            // After a cancel nothing reaches the downstream; the completion is passed on by the first leaver only.
            guard let parent = subscription.leave().parent else { return }
            downstream.receive(completion: completion)
            parent.subscriberRemoved()
        }

        var description: String { subscription.description }
    }
}
