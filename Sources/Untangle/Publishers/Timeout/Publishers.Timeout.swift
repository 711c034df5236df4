import UntangleSync

extension Publisher {
    /// Terminates publishing if the upstream publisher exceeds the specified time interval without producing an
    /// element.
    ///
    /// The clock starts when the upstream's subscription arrives (and again at the subscriber's first request) and
    /// restarts at every upstream value. If it runs out first, the upstream is cancelled and the subscriber receives
    /// `customError()` as a failure, or `.finished` when `customError` is nil, from the scheduler's timer; values
    /// still waiting on the scheduler are then dropped. Values and the upstream's own completion are delivered on
    /// `scheduler` (as ``Publisher/receive(on:options:)`` does). The clock is a repeating timer
    /// (`schedule(after:interval:tolerance:options:)`), as Apple's.
    ///
    /// ```swift
    /// let cancellable = response
    ///     .timeout(.seconds(5), scheduler: DispatchQueue.main, customError: { .timedOut })
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    ///
    /// **Demand:** passed through unchanged; values reach the subscriber whatever it asked for (as Apple's); demand
    /// the subscriber returns from `receive(_:)` is requested upstream. The clock runs whether or not the subscriber
    /// has requested anything.
    /// **Thread safety:** `customError` runs on the scheduler's timer, with no lock held, at most once. `request`/`cancel` may
    /// be called from any thread; once `cancel()` returns, nothing still waiting on the scheduler is delivered and
    /// the timer has no effect.
    public func timeout<S: Scheduler>(
        _ interval: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil,
        customError: (() -> Failure)? = nil
    ) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(
            upstream: self, interval: interval, scheduler: scheduler, options: options, customError: customError)
    }
}

extension Publishers {
    /// A publisher that terminates publishing if the upstream publisher exceeds a specified time interval without
    /// producing an element.
    ///
    /// ```swift
    /// let bounded = Publishers.Timeout(upstream: subject, interval: .seconds(1), scheduler: DispatchQueue.main,
    ///                                  options: nil, customError: nil)
    /// ```
    ///
    /// **Demand:** passed through unchanged.
    /// **Thread safety:** see ``Publisher/timeout(_:scheduler:options:customError:)``.
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum time interval the publisher can go without emitting an element, expressed in the time system
        /// of the scheduler.
        public let interval: Context.SchedulerTimeType.Stride

        /// The scheduler on which to deliver events.
        public let scheduler: Context

        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// A closure that executes if the publisher times out. The publisher sends the failure returned by this
        /// closure to the subscriber as the reason for termination.
        public let customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?

        /// Creates a publisher that terminates publishing if the upstream publisher exceeds the specified time
        /// interval without producing an element.
        public init(
            upstream: Upstream,
            interval: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions?,
            customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?
        ) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Attaches the subscriber and starts the clock when the upstream's subscription arrives.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                TimeoutSubscription(
                    downstream: subscriber, interval: interval, scheduler: scheduler, options: options,
                    customError: customError))
        }
    }
}

/// The subscriber `timeout` gives its upstream and the subscription it gives its downstream.
///
/// **Demand:** see ``Publisher/timeout(_:scheduler:options:customError:)``.
/// **Thread safety:** see ``Publisher/timeout(_:scheduler:options:customError:)``.
private final class TimeoutSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    // @unchecked Sendable: mutable state lives in `state` (a LockedBox) and the emitter (its own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure
    typealias Completion = Subscribers.Completion<Failure>

    private let state: LockedBox<TimeoutStateMachine<Downstream>>
    private let emitter: Emitter<DemandRelay<Downstream>>
    private let interval: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?
    private let customError: (() -> Failure)?

    init(
        downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
        options: Context.SchedulerOptions?, customError: (() -> Failure)?
    ) {
        let state = LockedBox(tracking: TimeoutStateMachine(downstream: downstream))
        self.state = state
        emitter = Emitter(
            downstream: DemandRelay(downstream: downstream) { more in
                guard let subscription = state.withCriticalSection({ $0.subscription }) else { return }
                CalloutCheck.assertNoLockHeld("Timeout requesting upstream the demand its downstream returned")
                subscription.request(more)
            },
            policy: .unbounded)
        // Values reach the downstream whatever it asked for (as Apple's): the emitter only serializes.
        emitter.request(.unlimited)
        self.interval = interval
        self.scheduler = scheduler
        self.options = options
        self.customError = customError
    }

    func receive(subscription: Subscription) {
        guard let arm = state.withCriticalSection({ $0.receiveSubscription(subscription) }) else {
            CalloutCheck.assertNoLockHeld("Timeout cancelling a second upstream subscription")
            subscription.cancel()
            return
        }
        restartClock(arm)
        emitter.start(subscription: self)
    }

    // The clock is a repeating timer (as Apple's): `schedule(after:interval:tolerance:options:)` is a callout, so it
    // is created with no lock held and stored afterwards, under the generation it was created for. Whoever bumps the
    // generation meanwhile (a value, the end of the stream) makes it stale: it is then cancelled at once, and a
    // firing of a stale timer finds its generation outdated under the lock and does nothing. The timer holds the
    // subscription and the downstream strongly, as Apple's does, until the scheduler lets go of it.
    private func restartClock(_ rearm: TimeoutStateMachine<Downstream>.Rearm) {
        if let stale = rearm.stale {
            CalloutCheck.assertNoLockHeld("Timeout cancelling its timer")
            stale.cancel()
        }
        let generation = rearm.generation
        let downstream = rearm.downstream
        CalloutCheck.assertNoLockHeld("Timeout scheduling its timer")
        let timer = scheduler.schedule(
            after: scheduler.now.advanced(by: interval), interval: interval, tolerance: scheduler.minimumTolerance,
            options: options
        ) { [self] in
            withExtendedLifetime(downstream) {
                timedOut(generation: generation)
            }
        }
        if let stale = state.withCriticalSection({ $0.timerArmed(timer, generation: generation) }) {
            CalloutCheck.assertNoLockHeld("Timeout cancelling a stale timer")
            stale.cancel()
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let rearm = state.withCriticalSection({ $0.receiveValue() }) else { return .none }
        restartClock(rearm)
        let downstream = rearm.downstream
        CalloutCheck.assertNoLockHeld("Timeout scheduling a value")
        scheduler.schedule(options: options) { [self] in
            // A value still on the scheduler when the stream ended (timed out, cancelled) is dropped.
            withExtendedLifetime(downstream) {
                if state.withCriticalSection({ $0.isRunning }) {
                    emitter.offer(input)
                }
            }
        }
        return .none
    }

    func receive(completion: Completion) {
        guard let stop = state.withCriticalSection({ $0.receiveCompletion() }) else { return }
        if let stale = stop.stale {
            CalloutCheck.assertNoLockHeld("Timeout cancelling its timer")
            stale.cancel()
        }
        let downstream = stop.downstream
        CalloutCheck.assertNoLockHeld("Timeout scheduling its completion")
        scheduler.schedule(options: options) { [self] in
            withExtendedLifetime(downstream) {
                guard let ended = state.withCriticalSection({ $0.end() }) else { return }
                if let timer = ended.timer {
                    CalloutCheck.assertNoLockHeld("Timeout cancelling its timer")
                    timer.cancel()
                }
                emitter.complete(completion, order: .afterQueuedValues)
            }
        }
    }

    private func timedOut(generation: Int) {
        guard let ended = state.withCriticalSection({ $0.end(firing: generation) }) else { return }
        if let timer = ended.timer {
            CalloutCheck.assertNoLockHeld("Timeout cancelling its timer")
            timer.cancel()
        }
        CalloutCheck.assertNoLockHeld("Timeout cancelling upstream on timeout")
        ended.upstream.cancel()
        CalloutCheck.assertNoLockHeld("Timeout calling customError")
        let completion: Completion = customError.map { .failure($0()) } ?? .finished
        emitter.complete(completion, order: .afterQueuedValues)
    }

    func request(_ demand: Subscribers.Demand) {
        guard let (subscription, rearm) = state.withCriticalSection({ $0.request() }) else { return }
        if let rearm {
            restartClock(rearm)
        }
        CalloutCheck.assertNoLockHeld("Timeout requesting upstream")
        subscription.request(demand)
    }

    func cancel() {
        let ended = state.withCriticalSection({ $0.end() })
        // The emitter in every case: when the stream already ended (the scheduled completion ran and handed the
        // completion to the emitter behind values still queued there, because another thread is delivering), the
        // state has nothing left to end, but what the emitter holds must not reach the downstream once cancel()
        // returned. Cancelling the emitter twice is harmless.
        emitter.cancel()
        guard let ended else { return }
        withExtendedLifetime(ended.downstream) {}
        if let timer = ended.timer {
            CalloutCheck.assertNoLockHeld("Timeout cancelling its timer")
            timer.cancel()
        }
        CalloutCheck.assertNoLockHeld("Timeout cancelling upstream")
        ended.upstream.cancel()
    }

    var description: String { "Timeout" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
    var playgroundDescription: Any { description }
}
