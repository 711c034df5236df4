import UntangleSync

// Performance: `@usableFromInline` with `@inlinable` members (and `ReceiveOn.receive(subscriber:)` `@inlinable`), so
// the client module specializes the hop for the concrete downstream and scheduler; unspecialized, each value spent
// most of its ~14,000 instructions in runtime generic-metadata lookups.
/// The subscription behind `receive(on:)`, `delay(for:tolerance:scheduler:options:)` and
/// `timeout(_:scheduler:options:customError:)`: every upstream value and the completion are handed to the scheduler
/// (at once, or after a fixed delay), and the scheduled actions hand them to the downstream's ``Emitter``.
///
/// ```swift
/// upstream.subscribe(HopSubscription(downstream: subscriber, name: "ReceiveOn", scheduler: queue, options: nil))
/// ```
///
/// **Demand:** requests pass straight upstream (and to the emitter); the demand the downstream returns from
/// `receive(_:)` is requested upstream too, from the delivering thread.
/// **Thread safety:** upstream signals may come from any thread (serialized, per the contract); `request` and
/// `cancel` from any thread. Work is scheduled with no library lock held. Scheduled actions may run concurrently (a
/// concurrent queue): the emitter serializes what reaches the downstream. On a serial scheduler the downstream sees
/// the upstream's order. Once `cancel()` returns, no value or completion still waiting on the scheduler reaches the
/// downstream.
@usableFromInline
final class HopSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, @unchecked Sendable
{
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

    /// The timeout's parameters: the longest quiet interval, and the failure to end with (nil: finish).
    @usableFromInline
    struct Timeout {
        @usableFromInline let interval: Stride
        @usableFromInline let customError: (() -> Failure)?

        @inlinable
        init(interval: Stride, customError: (() -> Failure)?) {
            self.interval = interval
            self.customError = customError
        }
    }

    @usableFromInline let state: LockedBox<HopStateMachine<Input, Completion>>
    @usableFromInline let emitter: Emitter<DemandRelay<Downstream>>
    @usableFromInline let scheduler: Context
    @usableFromInline let options: Context.SchedulerOptions?
    @usableFromInline let timing: Timing
    @usableFromInline let timeout: Timeout?
    @usableFromInline let description: String

    @inlinable
    init(
        downstream: Downstream, name: String, scheduler: Context, options: Context.SchedulerOptions?,
        timing: Timing = .immediate, timeout: Timeout? = nil
    ) {
        let state = LockedBox(tracking: HopStateMachine<Input, Completion>())
        self.state = state
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                guard let subscription = state.withCriticalSection({ $0.subscriptionForRequest() }) else { return }
                CalloutCheck.assertNoLockHeld("\(name) requesting upstream the demand its downstream returned")
                subscription.request(more)
            },
            policy: .unbounded)
        self.scheduler = scheduler
        self.options = options
        self.timing = timing
        self.timeout = timeout
        self.description = name
    }

    @inlinable
    func receive(subscription: Subscription) {
        guard state.withCriticalSection({ $0.receiveSubscription(subscription) }) else {
            CalloutCheck.assertNoLockHeld("\(description) cancelling a second upstream subscription")
            subscription.cancel()
            return
        }
        armTimeout(generation: 0)
        emitter.start(subscription: self)
    }

    // A value is offered to the emitter from the scheduled action. The emitter decides under its own lock, at
    // delivery time, whether the downstream is still there: after `cancel()` has returned it is not, so a value
    // still waiting on the scheduler is dropped there (its user value is released on the scheduler's thread, with
    // no lock held). The outstanding count then lets a due completion follow the last value in flight.
    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        if case .immediate = timing {
            guard let (generation, scheduleDrain) = state.withCriticalSection({ $0.receiveBatchedValue(input) })
            else { return .none }
            if scheduleDrain {
                hop { [self] in drainBatch() }
            }
            armTimeout(generation: generation)
            return .none
        }
        guard let generation = state.withCriticalSection({ $0.receiveValue() }) else { return .none }
        hop { [self] in
            emitter.offer(input)
            if let completion = state.withCriticalSection({ $0.valueActionFinished() }) {
                emitter.complete(completion, order: .afterQueuedValues)
            }
        }
        armTimeout(generation: generation)
        return .none
    }

    // Performance (immediate hops: receive(on:), timeout): values wait in the state's batch and one scheduled drain
    // offers every value that arrived before it ran, instead of one scheduled closure (an allocation, and on a
    // DispatchQueue a work item) and two lock round-trips per value. Order is the upstream's, on any scheduler. The
    // drain takes the whole batch in one critical section and offers it with no lock held; values that arrive
    // meanwhile form the next batch, for which the drain schedules itself again (rather than looping, so that other
    // work on a serial queue still runs between batches, as it did between per-value closures). At most one drain is
    // scheduled or running at a time (`drainScheduled`, under the lock). A completion follows the values: it is
    // handed over once its own action has run and the last batch is offered (`outstandingValues`). After `cancel()`
    // the emitter drops whatever the drain still offers.
    @inlinable
    func drainBatch() {
        let (taken, completion) = state.withCriticalSection { $0.takeBatch() }
        guard var batch = taken else {
            if let completion {
                emitter.complete(completion, order: .afterQueuedValues)
            }
            return
        }
        let delivered = batch.count
        while let value = batch.popFirst() {
            emitter.offer(value)
        }
        let (more, due) = state.withCriticalSection { $0.batchOffered(delivered, emptied: batch) }
        if more {
            hop { [self] in drainBatch() }
        } else if let due {
            emitter.complete(due, order: .afterQueuedValues)
        }
    }

    @inlinable
    func receive(completion: Completion) {
        guard let released = state.withCriticalSection({ $0.receiveCompletion(completion) }) else { return }
        withExtendedLifetime(released) {}
        hop { [self] in
            if let completion = state.withCriticalSection({ $0.completionActionRan() }) {
                emitter.complete(completion, order: .afterQueuedValues)
            }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.preconditionNonZero()
        emitter.request(demand)
        guard let subscription = state.withCriticalSection({ $0.subscriptionForRequest() }) else { return }
        CalloutCheck.assertNoLockHeld("\(description) requesting upstream")
        subscription.request(demand)
    }

    @inlinable
    func cancel() {
        guard let ended = state.withCriticalSection({ $0.cancel() }) else { return }
        // The emitter first: once it is cancelled nothing more reaches the downstream, whatever is still scheduled.
        emitter.cancel()
        // Released here, outside the lock (user values' deinit is user code).
        withExtendedLifetime((ended.completion, ended.batch)) {}
        if case .subscribed(let subscription) = ended.upstream {
            CalloutCheck.assertNoLockHeld("\(description) cancelling upstream")
            subscription.cancel()
        }
    }

    /// Hands `action` to the scheduler. `schedule` is a callout: no library lock may be held.
    @inlinable
    func hop(_ action: @escaping () -> Void) {
        CalloutCheck.assertNoLockHeld("\(description) scheduling a signal")
        switch timing {
        case .immediate:
            scheduler.schedule(options: options, action)
        case .after(let interval, let tolerance):
            scheduler.schedule(
                after: scheduler.now.advanced(by: interval), tolerance: tolerance, options: options, action)
        }
    }

    // One one-shot timer per generation: a value or the end bumps the generation, so an older timer finds itself
    // stale under the lock and does nothing. The timer holds the subscription weakly, so a long timeout does not keep
    // a cancelled subscription alive.
    @inlinable
    func armTimeout(generation: Int) {
        guard let timeout else { return }
        CalloutCheck.assertNoLockHeld("\(description) scheduling its timer")
        scheduler.schedule(
            after: scheduler.now.advanced(by: timeout.interval), tolerance: scheduler.minimumTolerance,
            options: options
        ) { [weak self] in
            self?.timeoutFired(generation: generation, timeout: timeout)
        }
    }

    @inlinable
    func timeoutFired(generation: Int, timeout: Timeout) {
        guard let upstream = state.withCriticalSection({ $0.timerFired(generation: generation) }) else { return }
        if case .subscribed(let subscription) = upstream {
            CalloutCheck.assertNoLockHeld("\(description) cancelling upstream on timeout")
            subscription.cancel()
        }
        CalloutCheck.assertNoLockHeld("\(description) calling customError")
        let completion: Completion = timeout.customError.map { .failure($0()) } ?? .finished
        if let completion = state.withCriticalSection({ $0.timedOut(with: completion) }) {
            emitter.complete(completion, order: .afterQueuedValues)
        }
    }
}
