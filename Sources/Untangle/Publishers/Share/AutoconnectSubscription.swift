import UntangleSync

/// What an ``AutoconnectSubscription`` reports to its autoconnect publisher.
protocol AutoconnectParent: AnyObject {
    /// A counted subscriber cancelled.
    func subscriberRemoved()
}

/// The subscription an autoconnect publisher hands each subscriber in place of the upstream's: it passes requests
/// and cancels to the upstream's subscription, and describes itself as that subscription does (and has its
/// `combineIdentifier`), as in Combine. The first cancel also tells the autoconnect that the subscriber left, so
/// that the last one to leave disconnects the upstream.
///
/// ```swift
/// downstream.receive(subscription: AutoconnectSubscription(upstream: subscription, parent: autoconnect))
/// ```
///
/// **Demand:** passed through unchanged.
/// **Thread safety:** `request`/`cancel` may be called from any thread; every cancel is passed on (as in Combine),
/// but only the first one is counted, so a subscriber cancelling twice, or from two threads at once, leaves once.
final class AutoconnectSubscription: Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
{
    private let upstream: Subscription
    private let parent: AutoconnectParent
    // 0 until the first cancel, then 1 (an atomic exchange decides which cancel is counted).
    private let cancelled = AtomicWord(0)

    init(upstream: Subscription, parent: AutoconnectParent) {
        self.upstream = upstream
        self.parent = parent
    }

    func request(_ demand: Subscribers.Demand) {
        CalloutCheck.assertNoLockHeld("autoconnect requesting upstream")
        upstream.request(demand)
    }

    func cancel() {
        CalloutCheck.assertNoLockHeld("autoconnect cancelling upstream")
        if cancelled.exchange(1) == 0 {
            parent.subscriberRemoved()
        }
        upstream.cancel()
    }

    /// The upstream subscription's identifier.
    var combineIdentifier: CombineIdentifier { upstream.combineIdentifier }
    /// The upstream subscription's description.
    var description: String { String(describing: upstream) }
    /// The description.
    var playgroundDescription: Any { description }
}

/// The subscriber an autoconnect publisher gives its upstream for each of its subscribers: it passes every signal
/// through unchanged (as Combine does, even after a completion), wrapping the subscription in an
/// ``AutoconnectSubscription``.
///
/// ```swift
/// upstream.subscribe(AutoconnectInner(parent: self, downstream: subscriber))
/// ```
///
/// **Demand:** passed through unchanged.
/// **Thread safety:** immutable; signals are passed on as they come.
struct AutoconnectInner<Parent: Publisher & AutoconnectParent, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let combineIdentifier = CombineIdentifier()
    let parent: Parent
    let downstream: Downstream

    func receive(subscription: Subscription) {
        CalloutCheck.assertNoLockHeld("autoconnect passing a subscription downstream")
        downstream.receive(subscription: AutoconnectSubscription(upstream: subscription, parent: parent))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    /// "Autoconnect".
    var description: String { "Autoconnect" }
    /// The autoconnect publisher and the subscriber, as in Combine.
    var customMirror: Mirror {
        Mirror(self, children: [("parent", parent as Any), ("downstream", downstream as Any)])
    }
    /// The description.
    var playgroundDescription: Any { description }
}
