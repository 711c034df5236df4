import UntangleSync

/// A serializing emitter for one downstream subscriber: the queue-and-drain half of Untangle's threading machinery.
///
/// Use it wherever several threads may signal one subscriber (subjects, Future, and the multi-input operators). Any
/// thread may call ``offer(_:)``, ``complete(_:order:)``, ``request(_:)`` and ``cancel()`` at any time; the
/// subscriber still sees one call at a time, `receive(subscription:)` first, never more values than it requested,
/// and nothing after its completion. No thread ever waits for another thread's callout: a thread that finds another
/// thread delivering hands its signal over and returns.
///
/// ```swift
/// let emitter = Emitter(downstream: subscriber, policy: .dropWithoutDemand)
/// emitter.start(subscription: self)      // delivers receive(subscription:)
/// emitter.offer(42)                      // from any thread
/// emitter.complete(.finished, order: .afterDemandedValues)
/// ```
///
/// **Demand:** `request(_:)` adds to the downstream's demand; values beyond it are handled by the
/// ``EmitterBufferPolicy``; the demand a subscriber returns from `receive(_:)` is added after each delivery.
/// **Thread safety:** every method may be called from any thread, concurrently and reentrantly (from inside the
/// subscriber's own callouts); callouts happen with no library lock held.
@usableFromInline
package struct Emitter<Downstream: Subscriber> {
    @usableFromInline
    let state: LockedBox<EmitterStateMachine<Downstream>>

    @inlinable
    package init(downstream: Downstream, policy: EmitterBufferPolicy) {
        state = LockedBox(tracking: EmitterStateMachine(downstream: downstream, policy: policy))
    }

    /// Delivers `receive(subscription:)`, then anything that queued meanwhile. Call exactly once, before or after
    /// the emitter became reachable from other threads.
    @inlinable
    package func start(subscription: Subscription) {
        let thread = ThreadID.current
        guard let downstream = state.withCriticalSection({ $0.startSubscription(on: thread) }) else { return }
        CalloutCheck.assertNoLockHeld("Emitter delivering receive(subscription:)")
        downstream.receive(subscription: subscription)
        // Leaving the subscription callout and taking the first queued signal share one critical section.
        drain(returnedDemand: .none, nestedInSubscriptionCallout: false, leavingSubscriptionCallout: true)
    }

    /// Offers a value; returns whether it was accepted (delivered or queued) rather than dropped.
    @inlinable
    @discardableResult
    package func offer(_ value: Downstream.Input) -> Bool {
        let thread = ThreadID.current
        switch state.withCriticalSection({ $0.offer(value, on: thread) }) {
        case .deliverAsOwner(let downstream):
            CalloutCheck.assertNoLockHeld("Emitter delivering a value")
            let more = downstream.receive(value)
            drain(returnedDemand: more, nestedInSubscriptionCallout: false)
            return true
        case .deliverNested(let downstream):
            CalloutCheck.assertNoLockHeld("Emitter delivering a nested value")
            let more = downstream.receive(value)
            state.withCriticalSection { $0.addReturnedDemand(more) }
            return true
        case .queued:
            return true
        case .dropped:
            return false
        }
    }

    /// Accepts the completion (the first one wins; later ones and values after it are ignored) and delivers it in
    /// the given order relative to queued values.
    @inlinable
    package func complete(_ completion: Subscribers.Completion<Downstream.Failure>, order: EmitterCompletionOrder) {
        let thread = ThreadID.current
        let (action, discarded) = state.withCriticalSection { $0.complete(completion, order: order, on: thread) }
        // Values dropped by the completion are released here, outside the lock (their deinit is user code).
        withExtendedLifetime(discarded) {}
        run(action)
    }

    /// Adds downstream demand and delivers what it allows.
    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        let thread = ThreadID.current
        run(state.withCriticalSection { $0.request(demand, on: thread) })
    }

    /// Stops all further delivery and releases the downstream and queued values. Returns true for the call that
    /// cancelled, false if the emitter had already ended (cancelled or completed).
    @inlinable
    @discardableResult
    package func cancel() -> Bool {
        // The downstream and the queue are released when `released` goes out of scope, after the lock.
        let released = state.withCriticalSection { $0.cancel() }
        return released != nil
    }

    @inlinable
    func run(_ action: EmitterStateMachine<Downstream>.DrainAction) {
        switch action {
        case .none:
            break
        case .drain:
            drain(returnedDemand: .none, nestedInSubscriptionCallout: false)
        case .drainNestedInSubscriptionCallout:
            drain(returnedDemand: .none, nestedInSubscriptionCallout: true)
        }
    }

    // The owner's loop: one lock round-trip per delivered value (taking the next signal and adding the demand the
    // previous delivery returned happen in the same critical section). A request made from inside `receive(_:)` only
    // adds demand; this loop, not the stack, delivers what it allows, so long synchronous streams do not recurse.
    @inlinable
    func drain(
        returnedDemand: Subscribers.Demand, nestedInSubscriptionCallout: Bool, leavingSubscriptionCallout: Bool = false
    ) {
        var more = returnedDemand
        var leaving = leavingSubscriptionCallout
        while true {
            let next = state.withCriticalSection { machine -> EmitterStateMachine<Downstream>.Next in
                if leaving {
                    machine.subscriptionCalloutReturned()
                }
                return machine.next(returnedDemand: more, nestedInSubscriptionCallout: nestedInSubscriptionCallout)
            }
            leaving = false
            switch next {
            case .value(let downstream, let value):
                CalloutCheck.assertNoLockHeld("Emitter delivering a queued value")
                more = downstream.receive(value)
            case .completion(let downstream, let completion, let discarded):
                withExtendedLifetime(discarded) {}
                CalloutCheck.assertNoLockHeld("Emitter delivering a completion")
                downstream.receive(completion: completion)
                return
            case .idle:
                return
            }
        }
    }
}
