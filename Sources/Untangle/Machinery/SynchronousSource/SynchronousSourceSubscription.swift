import UntangleSync

/// What a publisher with its elements at hand (`Just`, `Publishers.Sequence`, `Record`, `Optional.Publisher`,
/// `Result.Publisher`) tells its ``SynchronousSourceSubscription``: the elements, and how the subscription presents
/// itself as Combine's does (description, mirror, whether `request(.none)` is tolerated).
///
/// **Demand:** see ``SynchronousSourceSubscription``.
/// **Thread safety:** a value; the subscription reads it under its lock and describes it outside the lock (a
/// sequence's description may be user code).
@usableFromInline
protocol SynchronousSource {
    associatedtype Elements: IteratorProtocol
    associatedtype Failure: Error

    /// Whether `request(.none)` is ignored (true) or stops the program (false), as in Combine for this publisher.
    static var toleratesZeroDemand: Bool { get }

    /// A fresh iterator over the elements (called once per subscription).
    func makeElements() -> Elements

    /// The subscription's description: `source` is nil once the subscription finished or was cancelled.
    static func describe(_ source: Self?) -> String

    /// The subscription's mirror children; `source` is nil once the subscription finished or was cancelled.
    static func mirrorChildren(
        of source: Self?, completion: Subscribers.Completion<Failure>
    ) -> [Mirror.Child]
}

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
final class SynchronousSourceSubscription<Downstream: Subscriber, Source: SynchronousSource>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Source.Elements.Element == Downstream.Input, Source.Failure == Downstream.Failure {
    @usableFromInline typealias Elements = Source.Elements

    // The word beside the lock is 0 until `cancel()`, which sets it to 1 in its critical section: with unlimited
    // demand the emission loop reads it, without the lock, before each element (see `emit`).
    @usableFromInline let state: LockedBoxWithWord<SynchronousSourceStateMachine<Downstream, Source>>
    // Touched only by the thread that emits (the machine's phase, handed over through the lock), or, once the
    // subscription is over and nobody emits, by the one caller that moved the phase to `ended` (so a cancelled
    // `Just(bigObject)` frees the object even while its subscriber still holds the subscription).
    //
    // Performance: `@exclusivity(unchecked)`: the run-time exclusivity check of a class `var` (about 40 instructions
    // per access, three accesses per element) could never fire here: the accesses are instantaneous, by one thread
    // at a time (the protocol above), and a reentrant `request` or `cancel` from inside `receive` or from the
    // iterator's own code never touches these two while a thread emits.
    @exclusivity(unchecked) @usableFromInline var iterator: Elements?
    @exclusivity(unchecked) @usableFromInline var upcoming: Elements.Element?
    @usableFromInline let completion: Subscribers.Completion<Downstream.Failure>
    // Requests (non-nil) and cancel (nil), specialized: `request` and `cancel` are reached through the `Subscription`
    // witness table, which points at this class's unspecialized generic code, where every use of a generic type
    // costs a runtime metadata lookup (the emission loop would pay several per element). The closure is formed in
    // the `@inlinable` initializer, which the client module specializes; it captures nothing (no allocation).
    @usableFromInline let controlEntry: (SynchronousSourceSubscription, Subscribers.Demand?) -> Void

    @inlinable
    init(
        downstream: Downstream, source: Source, iterator: Elements, first: Elements.Element,
        completion: Subscribers.Completion<Downstream.Failure>
    ) {
        state = LockedBoxWithWord(
            tracking: SynchronousSourceStateMachine(
                downstream: downstream, source: source, subscribingThread: ThreadID.current))
        self.iterator = iterator
        self.upcoming = first
        self.completion = completion
        controlEntry = { subscription, demand in
            if let demand {
                subscription.specializedRequest(demand)
            } else {
                subscription.specializedCancel()
            }
        }
    }

    /// Subscribes `downstream` to the elements of `source` followed by `completion`. An empty source sends
    /// `Subscriptions.empty` and the completion at once. The first element is fetched before the subscription is
    /// sent, as in Combine.
    @inlinable
    static func subscribe(
        _ downstream: Downstream, to source: Source, completion: Subscribers.Completion<Downstream.Failure>
    ) {
        CalloutCheck.assertNoLockHeld("a synchronous source starting")
        var iterator = source.makeElements()
        guard let first = iterator.next() else {
            downstream.receive(subscription: Subscriptions.empty)
            downstream.receive(completion: completion)
            return
        }
        let subscription = SynchronousSourceSubscription(
            downstream: downstream, source: source, iterator: iterator, first: first, completion: completion)
        downstream.receive(subscription: subscription)
        if let downstream = subscription.state.withCriticalSection({ machine, _ in machine.subscriptionCalloutReturned()
        }) {
            subscription.emit(to: downstream)
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        if demand == .none {
            // Combine's sequence-like sources ignore it; `Just`, `Optional` and `Result` stop the program.
            if Source.toleratesZeroDemand { return }
            demand.preconditionNonZero()
        }
        controlEntry(self, demand)
    }

    @inlinable
    func cancel() {
        controlEntry(self, nil)
    }

    @inlinable
    func specializedRequest(_ demand: Subscribers.Demand) {
        let thread = ThreadID.current
        guard let downstream = state.withCriticalSection({ machine, _ in machine.request(demand, on: thread) }) else {
            return
        }
        emit(to: downstream)
    }

    // The emission loop. With bounded demand: one lock round-trip per element (taking the next unit of demand and
    // adding what the previous delivery returned share a critical section). Once the demand is unlimited nothing
    // is left to count, and the loop only has to notice a cancel: it reads the cancel word (an acquiring load, no
    // lock) before each further element, and goes back to the lock, which answers "stop", once it is set.
    //
    // Either way the element to deliver was fetched ahead, so between the check and the delivery no user code runs:
    // a `cancel()` on another thread can only slip into that gap of a few instructions (a delivery already begun,
    // which the contract allows). The next element is fetched after the delivery, outside the lock, so a slow or
    // blocking iterator never holds up `cancel()` and never delays a value past it.
    @inlinable
    func emit(to downstream: Downstream) {
        var returned = Subscribers.Demand.none
        loop: while true {
            switch state.withCriticalSection({ machine, _ in machine.takeOne(adding: returned) }) {
            case .stop:
                break loop
            case .cancelled:
                releaseElements()
                break loop
            case .one:
                guard deliverUpcoming(to: downstream, returned: &returned) else { return }
            case .unlimited:
                repeat {
                    guard deliverUpcoming(to: downstream, returned: &returned) else { return }
                } while !cancelledWithoutLock
            }
        }
    }

    /// Delivers the element fetched ahead and fetches the next; at the end, delivers the completion (unless
    /// cancelled) and returns false.
    // Performance: always inlined into both loops. Left to the optimizer, the call stayed out of line once the
    // synchronous source's lock box changed layout (demand-max1: 520.9 instructions per value instead of 406.0; the
    // two stored properties it touches are already `@exclusivity(unchecked)`).
    @inlinable
    @inline(__always)
    func deliverUpcoming(to downstream: Downstream, returned: inout Subscribers.Demand) -> Bool {
        let element = upcoming.take()!
        CalloutCheck.assertNoLockHeld("a synchronous source delivering a value")
        returned = downstream.receive(element)
        upcoming = iterator?.next()
        guard upcoming == nil else { return true }
        iterator = nil
        let (finished, source) = state.withCriticalSection { machine, _ in machine.finish() }
        withExtendedLifetime(source) {}
        if let finished {
            finished.receive(completion: completion)
        }
        return false
    }

    /// Whether `cancel()` has run, read without the lock where the platform allows (otherwise under it).
    @inlinable
    var cancelledWithoutLock: Bool {
        if LockedBoxWithWord<SynchronousSourceStateMachine<Downstream, Source>>.hasLockFreeWord {
            return state.loadWord() != 0
        }
        return state.withCriticalSection { machine, _ in machine.isOver }
    }

    @inlinable
    func specializedCancel() {
        let (released, releaseElements) = state.withCriticalSection { machine, word in
            word.store(1)
            return machine.cancel()
        }
        withExtendedLifetime(released) {}
        if releaseElements {
            self.releaseElements()
        }
    }

    @inlinable
    func releaseElements() {
        iterator = nil
        upcoming = nil
    }

    // The source is copied out under the lock and described outside it: a sequence's description is user code.
    @usableFromInline
    var description: String {
        Source.describe(state.withCriticalSection { machine, _ in machine.source })
    }

    @usableFromInline
    var customMirror: Mirror {
        let source = state.withCriticalSection { machine, _ in machine.source }
        return Mirror(self, children: Source.mirrorChildren(of: source, completion: completion))
    }

    @usableFromInline
    var playgroundDescription: Any { description }
}
