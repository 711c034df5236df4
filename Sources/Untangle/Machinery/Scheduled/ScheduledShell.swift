import UntangleSync

/// What a scheduler operator's pure state machine answers for the part the ``ScheduledShell`` handles itself: the
/// demand the downstream returns from `receive(_:)`. Everything else (values, timers, completions) stays the
/// operator's own.
///
/// ```swift
/// extension MyMachine: ScheduledStateMachine {
///     mutating func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? { addDemand(demand); return nil }
/// }
/// ```
///
/// **Demand:** `downstreamReturned` either counts the returned demand (returns nil) or names the upstream
/// subscription to request it from.
/// **Thread safety:** none: the shell calls it only under its lock; it must never call out.
@usableFromInline
package protocol ScheduledStateMachine {
    /// The downstream returned `demand` from `receive(_:)`: returns the upstream subscription to request it from, or
    /// nil (the machine counted it, or the stream has ended).
    mutating func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription?
}

/// A scheduler operator's state machine that arms repeating timers, each under a generation: a timer created (with
/// no lock held) for a generation that is no longer current is stale and must be cancelled at once.
///
/// ```swift
/// mutating func timerArmed(_ timer: Cancellable, generation: Int) -> Cancellable? {
///     guard generation == current else { return timer }   // stale: cancel it
///     armed = timer
///     return nil
/// }
/// ```
///
/// **Thread safety:** none: the shell calls it only under its lock.
@usableFromInline
package protocol ScheduledTimerStateMachine: ScheduledStateMachine {
    /// The timer for `generation` was created: returns the timer to cancel after unlocking (stale, or replaced), or
    /// nil when the machine keeps it.
    mutating func timerArmed(_ timer: Cancellable, generation: Int) -> Cancellable?
}

/// The callouts one decision of a scheduler operator needs, made by ``ScheduledShell/perform(_:)`` after the lock is
/// released, in this order: release, cancel the timer, cancel the upstream, offer the value, complete.
///
/// It allocates nothing for the per-value decisions: the value the machine replaced travels typed (`replaced`), not
/// boxed in an `Any`, and the one timer a decision cancels is an optional, not an array.
///
/// ```swift
/// let effects = shell.withCriticalSection { machine in ScheduledEffects(timer: machine.takeTimer(), value: machine.due) }
/// shell.perform(effects)
/// ```
///
/// **Demand:** none of its own: a value is offered to the emitter, which has `.unlimited` (the machine counts).
/// **Thread safety:** a value: built under the lock, performed after it.
@usableFromInline
package struct ScheduledEffects<Input, Failure: Error> {
    /// A value the machine let go of (replaced or dropped), released after unlocking: its deinit may be user code.
    @usableFromInline package var replaced: Input?
    /// What else the machine let go of when it ended (the downstream, a pending value), released after unlocking.
    @usableFromInline package var released: Any?
    /// The timer (or scheduled work) to cancel.
    @usableFromInline package var timer: Cancellable?
    /// The upstream subscription to cancel.
    @usableFromInline package var upstream: Subscription?
    /// A value for the downstream.
    @usableFromInline package var value: Input?
    /// The completion for the downstream, delivered after the values queued in the emitter.
    @usableFromInline package var completion: Subscribers.Completion<Failure>?

    /// Effects with the given parts; the defaults do nothing.
    @inlinable
    package init(
        replaced: Input? = nil, released: Any? = nil, timer: Cancellable? = nil, upstream: Subscription? = nil,
        value: Input? = nil, completion: Subscribers.Completion<Failure>? = nil
    ) {
        self.replaced = replaced
        self.released = released
        self.timer = timer
        self.upstream = upstream
        self.value = value
        self.completion = completion
    }
}

/// The half of the scheduler-operator skeleton that every scheduler-driven type shares, subscription or not: the
/// lock around a pure state, the scheduler and its options, and the callouts to the scheduler (its clock, actions
/// scheduled now or after a delay), each made with no lock held. ``ScheduledShell`` adds the downstream's emitter
/// for operators; `Debouncer` and `Throttler` (UntangleExtras) use the core alone.
///
/// ```swift
/// let core = ScheduledCore(state: State(), scheduler: DispatchQueue.main, options: nil)
/// let generation = core.withCriticalSection { state -> Int in state.generation += 1; return state.generation }
/// core.schedule(afterInterval: .seconds(1)) { [weak self] in self?.fire(generation) }
/// ```
///
/// **Thread safety:** every method may be called from any thread; the state is touched only under the lock, and
/// every callout (the scheduler, releases) happens after it is released.
@usableFromInline
package struct ScheduledCore<State, Context: Scheduler>: @unchecked Sendable {
    // @unchecked Sendable: the state lives in a LockedBox, the rest is immutable.
    /// The state, under its lock.
    @usableFromInline package let state: LockedBox<State>
    /// The scheduler the type works on.
    @usableFromInline package let scheduler: Context
    /// The type's scheduler options.
    @usableFromInline package let options: Context.SchedulerOptions?

    /// A core around `state` on `scheduler`.
    @inlinable
    package init(state: State, scheduler: Context, options: Context.SchedulerOptions?) {
        self.state = LockedBox(tracking: state)
        self.scheduler = scheduler
        self.options = options
    }

    /// Runs `body` on the state under the lock; make no callout in it.
    @inlinable
    package func withCriticalSection<Result>(_ body: (inout State) -> Result) -> Result {
        state.withCriticalSection(body)
    }

    /// Releases what the state let go of (a replaced value or action, the downstream), after unlocking: its deinit
    /// may be user code.
    @inlinable
    package func release(_ released: Any?) {
        guard released != nil else { return }
        CalloutCheck.assertNoLockHeld("scheduler operator releasing what its state let go of")
        withExtendedLifetime(released) {}
    }

    /// Reads the scheduler's clock (a callout: the scheduler is user code).
    @inlinable
    package var now: Context.SchedulerTimeType {
        CalloutCheck.assertNoLockHeld("scheduler operator reading the scheduler's clock")
        return scheduler.now
    }

    /// Schedules `action` on the scheduler at once, with `options`.
    @inlinable
    package func schedule(options: Context.SchedulerOptions?, _ action: @escaping () -> Void) {
        CalloutCheck.assertNoLockHeld("scheduler operator scheduling an action")
        scheduler.schedule(options: options, action)
    }

    /// Schedules `action` on the scheduler after `date` (the scheduler's minimum tolerance, no options).
    @inlinable
    package func schedule(after date: Context.SchedulerTimeType, _ action: @escaping () -> Void) {
        CalloutCheck.assertNoLockHeld("scheduler operator scheduling a delayed action")
        scheduler.schedule(after: date, action)
    }

    /// Schedules `action` once, `interval` from now, with the scheduler's minimum tolerance and the options.
    @inlinable
    package func schedule(afterInterval interval: Context.SchedulerTimeType.Stride, _ action: @escaping () -> Void) {
        CalloutCheck.assertNoLockHeld("scheduler operator scheduling a delayed action")
        scheduler.schedule(
            after: scheduler.now.advanced(by: interval), tolerance: scheduler.minimumTolerance, options: options,
            action)
    }
}

/// The skeleton of every scheduler operator (debounce, throttle, timeout): the downstream's ``Emitter`` behind a
/// ``DemandRelay``, the lock around the operator's pure ``ScheduledStateMachine``, the scheduler and its options, the
/// callouts to the scheduler (its clock, scheduled actions, generation-stamped repeating timers), and
/// ``perform(_:)``, the one place that makes the callouts a decision needs.
///
/// An operator's subscription keeps one `ScheduledShell` in a `let`, answers each upstream signal, request and timer
/// firing by deciding under the lock (``withCriticalSection(_:)``) and performing the result after unlocking.
///
/// ```swift
/// let shell = ScheduledShell(downstream: subscriber, machine: DebounceStateMachine(downstream: subscriber),
///                            scheduler: scheduler, options: options)
/// shell.armTimer(after: dueTime, generation: 1, keepingAlive: subscriber) { [self] in fire(generation: $0) }
/// shell.perform(shell.withCriticalSection { ScheduledEffects(timer: $0.end()?.timer) })
/// ```
///
/// **Demand:** the emitter is given `.unlimited` (it only serializes); the machine counts the downstream's demand
/// or passes it upstream, and the demand the downstream returns goes to ``ScheduledStateMachine/downstreamReturned(_:)``.
/// **Thread safety:** every method may be called from any thread; the machine is touched only under the lock, and
/// every callout (scheduler, upstream, downstream, releases) happens after it is released.
@usableFromInline
package struct ScheduledShell<Downstream: Subscriber, Machine: ScheduledStateMachine, Context: Scheduler>:
    @unchecked Sendable
{
    // @unchecked Sendable: the machine lives in a LockedBox, the emitter has its own lock, the rest is immutable.
    /// The downstream's serializing emitter.
    @usableFromInline package let emitter: Emitter<DemandRelay<Downstream>>
    /// The operator's state machine under its lock, and the scheduler's callouts.
    @usableFromInline package let core: ScheduledCore<Machine, Context>

    /// The operator's scheduler options.
    @inlinable
    package var options: Context.SchedulerOptions? { core.options }

    /// A shell around `machine` delivering to `downstream` on `scheduler`.
    @inlinable
    package init(downstream: Downstream, machine: Machine, scheduler: Context, options: Context.SchedulerOptions?) {
        let core = ScheduledCore(state: machine, scheduler: scheduler, options: options)
        self.core = core
        let state = core.state
        // The relay's closure captures the state, not the operator's subscription, so the emitter does not keep the
        // subscription alive.
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                guard let subscription = state.withCriticalSection({ $0.downstreamReturned(more) }) else { return }
                CalloutCheck.assertNoLockHeld(
                    "scheduler operator requesting upstream the demand its downstream returned")
                subscription.request(more)
            },
            policy: .unbounded)
        // The demand is the machine's (counted there, or passed upstream, as Apple's): the emitter only serializes.
        emitter.request(.unlimited)
    }

    /// Runs `body` on the machine under the lock; make no callout in it.
    @inlinable
    package func withCriticalSection<Result>(_ body: (inout Machine) -> Result) -> Result {
        core.withCriticalSection(body)
    }

    /// Makes the callouts `effects` names, with no lock held: releases, cancels the timer, cancels the upstream,
    /// offers the value, then completes the downstream after the queued values.
    @inlinable
    package func perform(_ effects: consuming ScheduledEffects<Downstream.Input, Downstream.Failure>) {
        if effects.replaced != nil {
            CalloutCheck.assertNoLockHeld("scheduler operator releasing the value its state let go of")
            effects.replaced = nil
        }
        core.release(effects.released)
        if let timer = effects.timer {
            CalloutCheck.assertNoLockHeld("scheduler operator cancelling its timer")
            timer.cancel()
        }
        if let upstream = effects.upstream {
            CalloutCheck.assertNoLockHeld("scheduler operator cancelling upstream")
            upstream.cancel()
        }
        if let value = effects.value {
            emitter.offer(value)
        }
        if let completion = effects.completion {
            emitter.complete(completion, order: .afterQueuedValues)
        }
    }

    /// The downstream receives `subscription` (the operator's own) through the emitter.
    @inlinable
    package func start(subscription: Subscription) {
        emitter.start(subscription: subscription)
    }

    /// An upstream subscription the machine refused (a second one, or after the end): cancelled at once.
    @inlinable
    package func refuse(_ subscription: Subscription) {
        CalloutCheck.assertNoLockHeld("scheduler operator cancelling an unwanted upstream subscription")
        subscription.cancel()
    }

    /// Requests `demand` from the upstream `subscription`.
    @inlinable
    package func request(_ demand: Subscribers.Demand, from subscription: Subscription) {
        CalloutCheck.assertNoLockHeld("scheduler operator requesting upstream")
        subscription.request(demand)
    }

    /// Reads the scheduler's clock (a callout: the scheduler is user code).
    @inlinable
    package var now: Context.SchedulerTimeType { core.now }

    /// Schedules `action` on the scheduler at once, with `options`.
    @inlinable
    package func schedule(options: Context.SchedulerOptions?, _ action: @escaping () -> Void) {
        core.schedule(options: options, action)
    }

    /// Schedules `action` on the scheduler after `date` (the scheduler's minimum tolerance, no options).
    @inlinable
    package func schedule(after date: Context.SchedulerTimeType, _ action: @escaping () -> Void) {
        core.schedule(after: date, action)
    }

    /// The downstream's cancel: ends the machine with `end` (nil: it had already ended), stops the emitter in every
    /// case, then performs what `end` returned.
    @inlinable
    package func cancel(ending end: (inout Machine) -> ScheduledEffects<Downstream.Input, Downstream.Failure>?) {
        let effects = withCriticalSection(end)
        // The emitter in every case: a completion already handed to it (behind values another thread is still
        // delivering) must not reach the downstream once cancel() returned. Cancelling it twice is harmless.
        emitter.cancel()
        if let effects {
            perform(effects)
        }
    }
}

extension ScheduledShell where Machine: ScheduledTimerStateMachine {
    // The timer is created by a callout (`schedule(after:interval:tolerance:options:)`), so with no lock held, and
    // stored under the lock afterwards under the generation it was created for; if the machine moved on meanwhile
    // (a newer value, the end of the stream) it answers the timer back and it is cancelled at once. A firing of a
    // stale timer finds its generation outdated under the lock and does nothing. The timer keeps `keepingAlive`
    // (the downstream, as Apple's timers do) until the scheduler lets go of it.
    /// Arms a repeating timer of period `interval` for `generation`: `fire(generation)` runs at each firing.
    @inlinable
    package func armTimer(
        after interval: Context.SchedulerTimeType.Stride, generation: Int, keepingAlive: Any,
        fire: @escaping (Int) -> Void
    ) {
        CalloutCheck.assertNoLockHeld("scheduler operator scheduling its timer")
        let scheduler = core.scheduler
        let timer = scheduler.schedule(
            after: scheduler.now.advanced(by: interval), interval: interval, tolerance: scheduler.minimumTolerance,
            options: core.options
        ) {
            withExtendedLifetime(keepingAlive) {
                fire(generation)
            }
        }
        if let stale = withCriticalSection({ $0.timerArmed(timer, generation: generation) }) {
            CalloutCheck.assertNoLockHeld("scheduler operator cancelling a stale timer")
            stale.cancel()
        }
    }
}
