import Dispatch
import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and `ReceiveOn.receive(subscriber:)` `@inlinable`), so
// the client module specializes the hop for the concrete downstream and scheduler; unspecialized, each value spent
// most of its ~14,000 instructions in runtime generic-metadata lookups.
/// The subscription behind `receive(on:)` and `delay(for:tolerance:scheduler:options:)`: every upstream value and
/// the completion are handed to the scheduler (at once, or after a fixed delay), and the scheduled actions hand them
/// to the downstream's ``Emitter``.
///
/// It describes nothing about itself (Apple's `Delay` subscription does not); ``DescribedHopSubscription`` adds the
/// description and mirror `receive(on:)` has.
///
/// ```swift
/// upstream.subscribe(HopSubscription(downstream: subscriber, name: "Delay", scheduler: queue, options: nil))
/// ```
///
/// **Demand:** requests pass straight upstream (`.none` too, as Apple's do); values reach the downstream whatever
/// it asked for; the demand the downstream returns from `receive(_:)` is requested upstream, from the delivering
/// thread.
/// **Thread safety:** upstream signals may come from any thread (serialized, per the contract); `request` and
/// `cancel` from any thread. Work is scheduled with no library lock held. Scheduled actions may run concurrently (a
/// concurrent queue): the emitter serializes what reaches the downstream. On a serial scheduler the downstream sees
/// the upstream's order. Once `cancel()` returns, nothing still waiting on the scheduler reaches the downstream, a
/// completion the upstream already sent included (Apple's Combine ignores a cancel once the upstream completed), and
/// the subscription holds no reference to the downstream.
@usableFromInline
class HopSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription, @unchecked Sendable {
    // @unchecked Sendable: mutable state lives in `state` (a LockedBox, touched only in critical sections) and in
    // the emitter (its own lock); everything else is immutable after init.
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline typealias Completion = Subscribers.Completion<Downstream.Failure>
    @usableFromInline typealias Stride = Context.SchedulerTimeType.Stride

    /// How long each signal waits on the scheduler.
    @usableFromInline
    enum Timing {
        /// `schedule(options:_:)`: as soon as possible.
        case immediate
        /// `schedule(after: now + interval, tolerance:options:_:)`.
        case after(Stride, tolerance: Stride)
    }

    @usableFromInline let state: LockedBox<HopStateMachine<Input, Completion, Downstream>>
    @usableFromInline let emitter: Emitter<DemandRelay<Downstream>>
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let timing: Timing
    @usableFromInline let name: String
    /// One scheduled drain per batch of values instead of one scheduled action per value (DispatchQueue only, where
    /// nobody can observe the number of `schedule` calls; see `drainBatch`).
    @usableFromInline let batches: Bool

    @inlinable
    init(
        downstream: Downstream, name: String, scheduler: Context, options: Context.SchedulerOptions?,
        timing: Timing = .immediate
    ) {
        let state = LockedBox(tracking: HopStateMachine<Input, Completion, Downstream>(downstream: downstream))
        self.state = state
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                guard let subscription = state.withCriticalSection({ $0.subscriptionForReturnedDemand() }) else {
                    return
                }
                CalloutCheck.assertNoLockHeld("\(name) requesting upstream the demand its downstream returned")
                subscription.request(more)
            },
            policy: .unbounded)
        // Apple's hops deliver whatever the downstream asked for: the emitter only serializes.
        emitter.request(.unlimited)
        self.scheduler = scheduler
        self.options = options
        self.timing = timing
        self.name = name
        if case .immediate = timing, Context.self == DispatchQueue.self {
            batches = true
        } else {
            batches = false
        }
    }

    @inlinable
    final func receive(subscription: Subscription) {
        let admission = state.withCriticalSection { $0.receiveSubscription(subscription) }
        admission.perform(on: subscription, operator: "a scheduler hop")
        guard admission.isAdmitted else { return }
        emitter.start(subscription: self)
    }

    // A value is offered to the emitter from the scheduled action, which holds the subscription, never the
    // downstream (Apple's keeps the downstream alive until it ran; the contract's cancel drops every reference). At
    // delivery time the state says whether the stream still runs: after `cancel()` has returned it does not (and the
    // emitter, cancelled, would drop the value anyway); the value is then released on the scheduler's thread, with no
    // lock held. The outstanding count lets a due completion follow the last value.
    @inlinable
    final func receive(_ input: Input) -> Subscribers.Demand {
        if batches {
            guard let scheduleDrain = state.withCriticalSection({ $0.receiveBatchedValue(input) }) else { return .none }
            if scheduleDrain {
                hop { [self] in drainBatch() }
            }
            return .none
        }
        guard state.withCriticalSection({ $0.receiveValue() }) else { return .none }
        hop { [self] in
            if state.withCriticalSection({ $0.mayDeliverValue() }) {
                emitter.offer(input)
            }
            if let (completion, released) = state.withCriticalSection({ $0.valueActionFinished() }) {
                withExtendedLifetime(released) {}
                emitter.complete(completion, order: .afterQueuedValues)
            }
        }
        return .none
    }

    // Performance (receive(on:) a DispatchQueue): values wait in the state's batch and one scheduled drain offers
    // every value that arrived before it ran, instead of one scheduled closure (an allocation and a work item) and two
    // lock round-trips per value. Order is the upstream's. The drain takes the whole batch in one critical section and
    // offers it with no lock held; values that arrive meanwhile form the next batch, for which the drain schedules
    // itself again (rather than looping, so that other work on a serial queue still runs between batches). At most
    // one drain is scheduled or running at a time (the machine's `drain`, under the lock). A completion follows the
    // values: it is handed over once its own action has run and the last batch is offered (`outstandingValues`).
    // After `cancel()` the emitter drops whatever the drain still offers.
    @inlinable
    final func drainBatch() {
        let (taken, due) = state.withCriticalSection { $0.takeBatch() }
        guard var batch = taken else {
            if let (completion, released) = due {
                withExtendedLifetime(released) {}
                emitter.complete(completion, order: .afterQueuedValues)
            }
            return
        }
        let delivered = batch.count
        while let value = batch.popFirst() {
            emitter.offer(value)
        }
        let (more, completionDue) = state.withCriticalSection { $0.batchOffered(delivered, emptied: batch) }
        if more {
            hop { [self] in drainBatch() }
        } else if let (completion, released) = completionDue {
            withExtendedLifetime(released) {}
            emitter.complete(completion, order: .afterQueuedValues)
        }
    }

    @inlinable
    final func receive(completion: Completion) {
        guard state.withCriticalSection({ $0.receiveCompletion(completion) }) else { return }
        hop { [self] in
            if let (completion, released) = state.withCriticalSection({ $0.completionActionRan() }) {
                withExtendedLifetime(released) {}
                emitter.complete(completion, order: .afterQueuedValues)
            }
        }
    }

    @inlinable
    final func request(_ demand: Subscribers.Demand) {
        guard let subscription = state.withCriticalSection({ $0.subscriptionForRequest() }) else { return }
        CalloutCheck.assertNoLockHeld("\(name) requesting upstream")
        subscription.request(demand)
    }

    @inlinable
    final func cancel() {
        let ended = state.withCriticalSection({ $0.cancel() })
        // The emitter first, and in every case: once it is cancelled nothing more reaches the downstream, whatever
        // is still scheduled, and also when the state had already ended (the completion was handed to the emitter
        // behind values still queued there, because another thread is delivering). Cancelling it twice is harmless.
        emitter.cancel()
        guard let ended else { return }
        // Released here, outside the lock (user values' deinit is user code).
        withExtendedLifetime((ended.downstream, ended.batch, ended.completion)) {}
        guard let upstream = ended.upstream else { return }
        CalloutCheck.assertNoLockHeld("\(name) cancelling upstream")
        upstream.cancel()
    }

    /// Hands `action` to the scheduler. `schedule` is a callout: no library lock may be held.
    @inlinable
    final func hop(_ action: @escaping () -> Void) {
        CalloutCheck.assertNoLockHeld("\(name) scheduling a signal")
        switch timing {
        case .immediate:
            scheduler.schedule(options: options, action)
        case .after(let interval, let tolerance):
            scheduler.schedule(
                after: scheduler.now.advanced(by: interval), tolerance: tolerance, options: options, action)
        }
    }
}

/// A ``HopSubscription`` that describes itself by its operator's name, with an empty mirror (`receive(on:)`'s, as
/// Apple's).
///
/// ```swift
/// upstream.subscribe(DescribedHopSubscription(downstream: subscriber, name: "ReceiveOn", scheduler: queue,
///                                             options: nil))
/// ```
///
/// **Demand:** as ``HopSubscription``.
/// **Thread safety:** as ``HopSubscription``; the description is immutable.
@usableFromInline
final class DescribedHopSubscription<Downstream: Subscriber, Context: Scheduler>: HopSubscription<
    Downstream, Context
>, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @inlinable
    override init(
        downstream: Downstream, name: String, scheduler: Context, options: Context.SchedulerOptions?,
        timing: Timing = .immediate
    ) {
        super.init(downstream: downstream, name: name, scheduler: scheduler, options: options, timing: timing)
    }

    @usableFromInline var description: String { name }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { name }
}
