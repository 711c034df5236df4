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
package typealias Emitter<Downstream: Subscriber> = SerialEmitter<EmitterBox<Downstream>>

extension SerialEmitter {
    /// An emitter with a state object of its own (an ``Emitter``).
    @inlinable
    package init<D: Subscriber>(downstream: D, policy: EmitterBufferPolicy) where Storage == EmitterBox<D> {
        state = EmitterBox(EmitterStateMachine(downstream: downstream, policy: policy))
    }
}

/// The emitter itself, over any ``EmitterStorage``: ``Emitter`` keeps its state in an object of its own; a
/// subject's subscription keeps it inline, under a lock the subject shares.
///
/// **Demand:** as ``Emitter``.
/// **Thread safety:** as ``Emitter``.
@usableFromInline
package struct SerialEmitter<Storage: EmitterStorage> {
    @usableFromInline package typealias Downstream = Storage.Downstream

    @usableFromInline
    let state: Storage

    /// An emitter over `storage`, whose word and state machine are already initialized.
    @inlinable
    package init(storage: Storage) {
        state = storage
    }

    // The owner word, beside the lock: the owning thread's `ThreadID.bits` (0: nobody owns the emitter) plus
    // `fastBit`, set while the state machine `isFastEligible`. Only two transitions happen without the lock, both
    // by compare-exchange: a thread claims the word from exactly `fastBit` (unowned and eligible) to `me | fastBit`,
    // delivers a value to the downstream in place, and gives the word back from exactly `me | fastBit` to `fastBit`.
    // Every critical section (`critical`) first clears `fastBit`, which makes both transitions fail from then on, so
    // while the lock is held the word changes only under it; it then runs the state machine with the owner read from
    // the word and stores the owner and eligibility back. A fast owner whose give-back fails (somebody queued,
    // requested a bounded amount, completed or cancelled meanwhile) takes the lock and drains like any owner.
    //
    // Why a fast owner may read the downstream without the lock: the state machine writes `downstream` only when
    // nobody owns the emitter, or by the owner itself (a cancel made while owned is deferred to the owner), and the
    // claim is acquiring while every store is releasing, so the owner sees the state the last critical section left.
    @inlinable
    static var fastBit: Int { 1 }

    /// Runs `body` under the lock with the machine's `owner` loaded from the owner word, and stores the word back.
    @inlinable
    func critical<Result>(_ body: (inout EmitterStateMachine<Downstream>) -> Result) -> Result {
        state.withCriticalSection { machine, word in
            var observed = word.load()
            if observed & Self.fastBit != 0 {
                // The returned old word, not `observed`: a fast claim may have happened since the load.
                observed = word.clearBits(Self.fastBit) & ~Self.fastBit
            }
            machine.ownerBits = observed
            let result = body(&machine)
            let updated = machine.ownerBits | (machine.isFastEligible ? Self.fastBit : 0)
            if updated != observed {
                word.store(updated)
            }
            return result
        }
    }

    /// Delivers `receive(subscription:)`, then anything that queued meanwhile. Call exactly once, before or after
    /// the emitter became reachable from other threads.
    @inlinable
    package func start(subscription: Subscription) {
        let thread = ThreadID.current
        guard let downstream = critical({ $0.startSubscription(on: thread) }) else { return }
        CalloutCheck.assertNoLockHeld("Emitter delivering receive(subscription:)")
        downstream.receive(subscription: subscription)
        // Leaving the subscription callout and taking the first queued signal share one critical section.
        drain(returnedDemand: .none, nestedInSubscriptionCallout: false, leavingSubscriptionCallout: true)
    }

    /// Offers a value; returns whether it was accepted (delivered or queued) rather than dropped.
    //
    // Performance: the lock-free path is always inlined into the caller, which lets the optimizer see that nothing
    // it holds (for an operator: the emitter's storage, reached through its own `let`s) can be released during the
    // delivery, so it retains nothing around it; everything else is in `offerLocked`.
    @inlinable
    @inline(__always)
    @discardableResult
    package func offer(_ value: Downstream.Input) -> Bool {
        let thread = ThreadID.current
        if offerLockFree(value, on: thread) {
            return true
        }
        return offerLocked(value, on: thread)
    }

    /// Delivers `value` without the lock if the emitter is fast-eligible and nobody owns it; returns false, having
    /// done nothing, otherwise.
    @inlinable
    @inline(__always)
    func offerLockFree(_ value: Downstream.Input, on thread: ThreadID) -> Bool {
        if LockedBoxWithWord<Int>.hasLockFreeWord {
            let owned = thread.bits | Self.fastBit
            if state.compareExchangeWord(expected: Self.fastBit, desired: owned) {
                CalloutCheck.assertNoLockHeld("Emitter delivering a value (fast path)")
                // Demand is unlimited while the fast bit is set, so the returned demand changes nothing unless the
                // give-back below fails and the state machine takes over.
                let more = receiveAsOwner(value)
                if !state.compareExchangeWord(expected: owned, desired: Self.fastBit) {
                    drain(returnedDemand: more, nestedInSubscriptionCallout: false)
                }
                return true
            }
        }
        return false
    }

    /// Delivers `value` to the downstream, read in place without the lock; only the emitter's owner may call it
    /// (the fast path's, or the owner of an accepted value).
    //
    // The reference is read without a retain (`downstream` is at offset 0 and non-nil while anybody owns the
    // emitter, see `fastBit`) and the subscriber is borrowed through it: no reference counting per value.
    // `downstreamHolding` never changes after init, so reading it here races with nothing.
    // The load is UntangleSync's `UnlockedValue.borrowLeadingObject`: not `rethrows`, always inlined, and it calls
    // this closure from a closure literal of its own, so the closure is never converted to a throwing function type
    // and the subscriber's `receive` is still inlined into a subject's offer (a helper that passed the closure on
    // as it was cost +23.5 instructions per value on subject-map-filter-sink; see "Raw memory" in
    // Benchmarks/README.md).
    // EmitterStateMachineLayoutTests checks the layout this relies on.
    @inlinable
    @inline(__always)
    func receiveAsOwner(_ value: Downstream.Input) -> Subscribers.Demand {
        state.withUnlockedValue { machine in
            machine.borrowLeadingObject {
                DownstreamReference<Downstream>.receive(value, through: $0, holding: machine.pointee.downstreamHolding)
            }
        }
    }

    /// Offers a value that is kept beyond demand per `limit` (see ``EmitterWaitingLimit``), and never delivered
    /// nested: a value offered from inside the downstream's own `receive` (on the delivering thread) is queued and
    /// delivered by that thread's loop once the `receive` returned, so a producer answering each value with the
    /// next runs in constant stack depth. Returns the older value dropped to make room, if any, for the caller to
    /// release (a value not kept is left to the caller too).
    //
    // The lock-free path is `offer`'s: it needs unlimited demand and nobody owning the emitter, so the limit does
    // not matter there and a reentrant call (its thread owns the emitter) never takes it.
    @inlinable
    @discardableResult
    package func offer(_ value: Downstream.Input, limit: EmitterWaitingLimit) -> Downstream.Input? {
        let thread = ThreadID.current
        if offerLockFree(value, on: thread) {
            return nil
        }
        switch critical({ $0.offer(value, on: thread, limit: limit) }) {
        case .deliverAsOwner(let downstream):
            deliver(value, asOwnerTo: downstream)
            return nil
        case .queuedReplacing(let dropped):
            return dropped
        case .queued, .dropped:
            return nil
        case .deliverNested, .replacingAsOwner:
            impossibleEvent("Emitter: offer(_:limit:) answered a keepLatest or nested delivery")
        }
    }

    @inlinable
    func offerLocked(_ value: Downstream.Input, on thread: ThreadID) -> Bool {
        switch critical({ $0.offer(value, on: thread) }) {
        case .deliverAsOwner(let downstream):
            deliver(value, asOwnerTo: downstream)
            return true
        case .deliverNested(let downstream):
            CalloutCheck.assertNoLockHeld("Emitter delivering a nested value")
            let more = downstream.receive(value)
            critical { $0.addReturnedDemand(more) }
            return true
        case .queued:
            return true
        case .queuedReplacing(let replaced):
            withExtendedLifetime(replaced) {}
            return true
        case .replacingAsOwner(let replaced):
            withExtendedLifetime(replaced) {}
            drain(returnedDemand: .none, nestedInSubscriptionCallout: false)
            return true
        case .dropped:
            return false
        }
    }

    /// Delivers a value the state machine answered `.deliverAsOwner` for (this thread now owns the emitter), then
    /// what queued meanwhile.
    @inlinable
    @inline(__always)
    func deliver(_ value: Downstream.Input, asOwnerTo downstream: DownstreamReference<Downstream>) {
        CalloutCheck.assertNoLockHeld("Emitter delivering a value")
        let more = downstream.receive(value)
        drain(returnedDemand: more, nestedInSubscriptionCallout: false)
    }

    /// Queues a value without delivering it (see ``EmitterWaitingLimit`` for what is kept beyond demand): the
    /// owner's loop, or the next request, delivers it (a replay's values, queued before ``start(subscription:)``,
    /// for example). Returns the older value dropped to make
    /// room, if any, for the caller to release outside its locks (a value not kept is left to the caller too).
    //
    // It takes only the emitter's own lock and calls nothing, so it may run under another library lock: a subject
    // that queues a value to each of its subscribers under its own lock gives them all one order of values, which
    // a delivering `offer` (a callout) could not do there. Queueing never delivers, not even on the owner's thread:
    // the owner's loop picks the value up.
    @inlinable
    package func enqueue(_ value: Downstream.Input, limit: EmitterWaitingLimit) -> Downstream.Input? {
        switch critical({ $0.enqueue(value, limit: limit) }) {
        case .queuedReplacing(let dropped):
            return dropped
        case .queued, .dropped:
            return nil
        case .deliverAsOwner, .deliverNested, .replacingAsOwner:
            impossibleEvent("Emitter: enqueue(_:limit:) answered a delivery")
        }
    }

    /// Accepts a value under a lock of the caller's own, like ``enqueue(_:limit:)``, but when nobody delivers and
    /// nothing is queued ahead of it within demand, makes the caller the owner instead: it then returns true, and
    /// the caller must call ``deliverAccepted(_:)`` with the value after leaving its lock. Otherwise the value was
    /// queued or not kept (false); `dropped` receives the older value dropped to make room, if any.
    //
    // Owning the emitter for a moment without being in a callout changes nothing for the other threads: as while
    // the owner delivers, they queue their signals and return, and the owner's drain picks them up after this value.
    // The accepted value is marked with `batchBit`, as a batch is: a cancel (or an immediate completion) made before
    // it is delivered clears the bit, and `deliverAccepted` then drops it instead of delivering after the cancel.
    //
    // Lock-free first, as `offerLockFree` claims the word: from exactly `fastBit` (nobody owns the emitter and it is
    // fast-eligible: started, open, unlimited demand, nothing queued, so the locked path would make the caller the
    // owner and change nothing else) to `me | fastBit | batchBit`, the word the locked path leaves for an accepted
    // value. Every critical section clears `fastBit` and reads the owner and `batchBit` from the word, so what
    // follows is the locked path's: another thread's value queues behind this one, a cancel clears `batchBit`.
    @inlinable
    package func accept(
        _ value: Downstream.Input, limit: EmitterWaitingLimit, dropped: inout Downstream.Input?
    ) -> Bool {
        let thread = ThreadID.current
        if LockedBoxWithWord<Int>.hasLockFreeWord,
            state.compareExchangeWord(
                expected: Self.fastBit, desired: thread.bits | Self.fastBit | EmitterStateMachine<Downstream>.batchBit)
        {
            return true
        }
        let action = critical { machine -> EmitterStateMachine<Downstream>.OfferAction in
            let action = machine.offer(value, on: thread, limit: limit)
            if case .deliverAsOwner = action {
                machine.ownerBits |= EmitterStateMachine<Downstream>.batchBit
            }
            return action
        }
        switch action {
        case .deliverAsOwner:
            return true
        case .queuedReplacing(let old):
            dropped = old
            return false
        case .queued, .dropped:
            return false
        case .deliverNested, .replacingAsOwner:
            impossibleEvent("Emitter: accept(_:limit:dropped:) answered a keepLatest or nested delivery")
        }
    }

    /// Delivers the value for which ``accept(_:limit:dropped:)`` returned true, then what queued meanwhile.
    //
    // The owner may read the downstream without the lock: nobody else writes it while the emitter is owned (a
    // cancel made meanwhile leaves it to the owner's next critical section, see `SerialEmitter.fastBit`).
    @inlinable
    package func deliverAccepted(_ value: Downstream.Input) {
        let batchBit = EmitterStateMachine<Downstream>.batchBit
        let stillWanted =
            LockedBoxWithWord<Int>.hasLockFreeWord
            ? state.loadWord() & batchBit != 0 : critical { $0.ownerBits & batchBit != 0 }
        guard stillWanted else {
            // Cancelled meanwhile: the owner's next critical section releases the downstream.
            drain(returnedDemand: .none, nestedInSubscriptionCallout: false)
            return
        }
        CalloutCheck.assertNoLockHeld("Emitter delivering an accepted value")
        // Read in place as the lock-free path does: other threads mutate the machine under the lock meanwhile (they
        // queue), never its leading `downstream` while the emitter is owned.
        let more = receiveAsOwner(value)
        // Given back as the lock-free path gives it back: a word still `me | fastBit | batchBit` means the machine
        // is still fast-eligible with nothing queued, so the drain would only release ownership (the returned
        // demand changes nothing while demand is unlimited).
        if LockedBoxWithWord<Int>.hasLockFreeWord {
            let owned = ThreadID.current.bits | Self.fastBit | batchBit
            if state.compareExchangeWord(expected: owned, desired: Self.fastBit) {
                return
            }
        }
        drain(returnedDemand: more, nestedInSubscriptionCallout: false)
    }

    /// Accepts the completion (the first one wins; later ones and values after it are ignored) and delivers it in
    /// the given order relative to queued values.
    @inlinable
    package func complete(_ completion: Subscribers.Completion<Downstream.Failure>, order: EmitterCompletionOrder) {
        let thread = ThreadID.current
        let (action, discarded) = critical { $0.complete(completion, order: order, on: thread) }
        // Values dropped by the completion are released here, outside the lock (their deinit is user code).
        withExtendedLifetime(discarded) {}
        run(action)
    }

    /// Adds downstream demand and delivers what it allows.
    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        let thread = ThreadID.current
        run(critical { $0.request(demand, on: thread) })
    }

    /// Stops all further delivery and releases the downstream and queued values. Returns true for the call that
    /// cancelled, false if the emitter had already ended (cancelled or completed).
    @inlinable
    @discardableResult
    package func cancel() -> Bool {
        // The downstream (unless the owner still uses it) and the queue are released when `result` goes out of
        // scope, after the lock.
        let result = critical { $0.cancel() }
        return result.cancelled
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
    // previous delivery returned happen in the same critical section), or per batch when other threads queued
    // several values meanwhile (see `EmitterStateMachine.next`). A request made from inside `receive(_:)` only
    // adds demand; this loop, not the stack, delivers what it allows, so long synchronous streams do not recurse.
    @inlinable
    func drain(
        returnedDemand: Subscribers.Demand, nestedInSubscriptionCallout: Bool, leavingSubscriptionCallout: Bool = false
    ) {
        var more = returnedDemand
        var leaving = leavingSubscriptionCallout
        while true {
            let next = critical { machine -> EmitterStateMachine<Downstream>.Next in
                if leaving {
                    machine.subscriptionCalloutReturned()
                }
                return machine.next(
                    returnedDemand: more, nestedInSubscriptionCallout: nestedInSubscriptionCallout,
                    batching: LockedBoxWithWord<Int>.hasLockFreeWord)
            }
            leaving = false
            switch next {
            case .value(let downstream, let value):
                CalloutCheck.assertNoLockHeld("Emitter delivering a queued value")
                more = downstream.receive(value)
            case .values(let downstream, var batch):
                // A batch (see `EmitterStateMachine.next`): delivered without the lock while the owner word keeps
                // `batchBit`; a cancel clears it, and the rest of the batch is released here, outside the lock.
                more = .none
                while let value = batch.popFirst() {
                    guard state.loadWord() & EmitterStateMachine<Downstream>.batchBit != 0 else { break }
                    CalloutCheck.assertNoLockHeld("Emitter delivering a batch of queued values")
                    more += downstream.receive(value)
                }
                withExtendedLifetime(batch) {}
            case .completion(let downstream, let completion, let discarded):
                withExtendedLifetime(discarded) {}
                CalloutCheck.assertNoLockHeld("Emitter delivering a completion")
                downstream.receive(completion: completion)
                return
            case .cancelled(let downstream, let discarded):
                withExtendedLifetime((downstream, discarded)) {}
                return
            case .idle:
                return
            }
        }
    }
}
