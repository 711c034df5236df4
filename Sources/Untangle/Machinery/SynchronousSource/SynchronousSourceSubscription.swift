import UntangleSync

/// The subscription of every publisher whose elements are already at hand (`Just`, `Publishers.Sequence`, `Record`,
/// `Optional.Publisher`, `Result.Publisher`): the "drain" half of the threading machinery for synchronous sources.
///
/// `request(n)` adds demand; whoever finds nobody emitting becomes the emitter and loops while demand and elements
/// remain. A `request` made from inside `receive(_:)` only adds demand and returns, so the loop, not the stack,
/// delivers the next element: a million elements requested one at a time from inside `receive` use constant stack.
/// A request made from inside `receive(subscription:)` starts the loop there, as Apple's Combine does.
///
/// The element after the one being delivered is fetched ahead, so the completion follows the last element at once,
/// even when the subscriber has no demand left (completion needs no demand).
///
/// **Demand:** exactly one element per unit of demand; `.unlimited` streams everything.
/// **Thread safety:** `request` and `cancel` may be called from any thread, concurrently and reentrantly. The
/// iterator is advanced only by the emitting thread, outside the lock (it may run user code, e.g. a lazy `map`).
@usableFromInline
final class SynchronousSourceSubscription<Downstream: Subscriber, Elements: IteratorProtocol>: Subscription,
    CustomStringConvertible, @unchecked Sendable
where Elements.Element == Downstream.Input {
    @usableFromInline let state: LockedBox<SynchronousSourceStateMachine<Downstream>>
    // Touched only by the thread that owns `emitting` (handed over through the lock), or, once the subscription is
    // over and nobody emits, by the one caller that claimed their release (so a cancelled `Just(bigObject)` frees
    // the object even while its subscriber still holds the subscription).
    @usableFromInline var iterator: Elements?
    @usableFromInline var upcoming: Elements.Element?
    @usableFromInline let completion: Subscribers.Completion<Downstream.Failure>
    @usableFromInline let name: String
    // Requests (non-nil) and cancel (nil), specialized: `request` and `cancel` are reached through the `Subscription`
    // witness table, which points at this class's unspecialized generic code, where every use of a generic type
    // costs a runtime metadata lookup (the emission loop would pay several per element). The closure is formed in
    // the `@inlinable` initializer, which the client module specializes; it captures nothing (no allocation).
    @usableFromInline let controlEntry: (SynchronousSourceSubscription, Subscribers.Demand?) -> Void

    @inlinable
    init(
        downstream: Downstream, iterator: Elements, first: Elements.Element,
        completion: Subscribers.Completion<Downstream.Failure>, name: String
    ) {
        state = LockedBox(
            tracking: SynchronousSourceStateMachine(downstream: downstream, subscribingThread: ThreadID.current))
        self.iterator = iterator
        self.upcoming = first
        self.completion = completion
        self.name = name
        controlEntry = { subscription, demand in
            if let demand {
                subscription.specializedRequest(demand)
            } else {
                subscription.specializedCancel()
            }
        }
    }

    /// Subscribes `downstream` to the elements of `iterator` followed by `completion`. An empty source sends
    /// `Subscriptions.empty` and the completion at once.
    @inlinable
    static func subscribe(
        _ downstream: Downstream, to iterator: Elements,
        completion: Subscribers.Completion<Downstream.Failure>, name: String
    ) {
        var iterator = iterator
        CalloutCheck.assertNoLockHeld("a synchronous source starting")
        guard let first = iterator.next() else {
            downstream.receive(subscription: Subscriptions.empty)
            downstream.receive(completion: completion)
            return
        }
        let subscription = SynchronousSourceSubscription(
            downstream: downstream, iterator: iterator, first: first, completion: completion, name: name)
        downstream.receive(subscription: subscription)
        if let downstream = subscription.state.withCriticalSection({ $0.subscriptionCalloutReturned() }) {
            subscription.emit(to: downstream)
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        controlEntry(self, demand)
    }

    @inlinable
    func cancel() {
        controlEntry(self, nil)
    }

    @inlinable
    func specializedRequest(_ demand: Subscribers.Demand) {
        let thread = ThreadID.current
        guard let downstream = state.withCriticalSection({ $0.request(demand, on: thread) }) else { return }
        emit(to: downstream)
    }

    // The emission loop: one lock round-trip per element (taking the next unit of demand and adding what the previous
    // delivery returned share a critical section).
    //
    // The element to deliver was fetched ahead, so between taking demand and delivering no user code runs: a
    // `cancel()` on another thread can only slip into that gap of a few instructions (a delivery already begun,
    // which the contract allows). The next element is fetched after the delivery, outside the lock, so a slow or
    // blocking iterator never holds up `cancel()` and never delays a value past it.
    @inlinable
    func emit(to downstream: Downstream) {
        var returned = Subscribers.Demand.none
        while state.withCriticalSection({ $0.takeOne(adding: returned) }) {
            let element = upcoming.take()!
            CalloutCheck.assertNoLockHeld("a synchronous source delivering a value")
            returned = downstream.receive(element)
            upcoming = iterator?.next()
            if upcoming == nil {
                iterator = nil
                if let downstream = state.withCriticalSection({ $0.finish() }) {
                    downstream.receive(completion: completion)
                }
                return
            }
        }
        releaseElementsIfCancelled()
    }

    @inlinable
    func specializedCancel() {
        let (released, mayRelease) = state.withCriticalSection { ($0.cancel(), $0.claimElementRelease()) }
        withExtendedLifetime(released) {}
        if mayRelease {
            releaseElements()
        }
    }

    // After the loop gave up emitting: if that was because of a cancel, nobody will ever touch the elements again.
    @inlinable
    func releaseElementsIfCancelled() {
        if state.withCriticalSection({ $0.claimElementRelease() }) {
            releaseElements()
        }
    }

    @inlinable
    func releaseElements() {
        iterator = nil
        upcoming = nil
    }

    @usableFromInline
    var description: String { name }
}
