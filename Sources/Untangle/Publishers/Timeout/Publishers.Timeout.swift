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
    // @unchecked Sendable: mutable state lives in the shell (a LockedBox and the emitter's own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure
    typealias Completion = Subscribers.Completion<Failure>

    private let shell: ScheduledShell<Downstream, TimeoutStateMachine<Downstream>, Context>
    private let interval: Context.SchedulerTimeType.Stride
    private let customError: (() -> Failure)?

    // Values reach the downstream whatever it asked for (as Apple's): the shell's emitter only serializes, and the
    // demand the downstream returns is requested upstream (`TimeoutStateMachine.downstreamReturned`).
    init(
        downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
        options: Context.SchedulerOptions?, customError: (() -> Failure)?
    ) {
        shell = ScheduledShell(
            downstream: downstream, machine: TimeoutStateMachine(downstream: downstream), scheduler: scheduler,
            options: options)
        self.interval = interval
        self.customError = customError
    }

    func receive(subscription: Subscription) {
        guard let arm = shell.withCriticalSection({ $0.receiveSubscription(subscription) }) else {
            shell.refuse(subscription)
            return
        }
        restartClock(arm)
        shell.start(subscription: self)
    }

    // The clock is a repeating timer (as Apple's), armed under a generation (see `ScheduledShell.armTimer`): whoever
    // bumps the generation meanwhile (a value, the end of the stream) makes it stale. The timer holds the
    // subscription and the downstream strongly, as Apple's does, until the scheduler lets go of it.
    private func restartClock(_ rearm: TimeoutStateMachine<Downstream>.Rearm) {
        shell.perform(ScheduledEffects(timer: rearm.stale))
        shell.armTimer(after: interval, generation: rearm.generation, keepingAlive: rearm.downstream) {
            [self] generation in
            timedOut(generation: generation)
        }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let rearm = shell.withCriticalSection({ $0.receiveValue() }) else { return .none }
        restartClock(rearm)
        let downstream = rearm.downstream
        shell.schedule(options: shell.options) { [self] in
            // A value still on the scheduler when the stream ended (timed out, cancelled) is dropped.
            withExtendedLifetime(downstream) {
                if shell.withCriticalSection({ $0.isRunning }) {
                    shell.perform(ScheduledEffects(value: input))
                }
            }
        }
        return .none
    }

    func receive(completion: Completion) {
        guard let stop = shell.withCriticalSection({ $0.receiveCompletion() }) else { return }
        shell.perform(ScheduledEffects(timer: stop.stale))
        let downstream = stop.downstream
        shell.schedule(options: shell.options) { [self] in
            withExtendedLifetime(downstream) {
                guard let ended = shell.withCriticalSection({ $0.end() }) else { return }
                shell.perform(ScheduledEffects(timer: ended.timer, completion: completion))
            }
        }
    }

    private func timedOut(generation: Int) {
        guard let ended = shell.withCriticalSection({ $0.end(firing: generation) }) else { return }
        shell.perform(ScheduledEffects(timer: ended.timer, upstream: ended.upstream))
        CalloutCheck.assertNoLockHeld("Timeout calling customError")
        let completion: Completion = customError.map { .failure($0()) } ?? .finished
        shell.perform(ScheduledEffects(completion: completion))
    }

    func request(_ demand: Subscribers.Demand) {
        guard let (subscription, rearm) = shell.withCriticalSection({ $0.request() }) else { return }
        if let rearm {
            restartClock(rearm)
        }
        shell.request(demand, from: subscription)
    }

    // When the stream already ended (the scheduled completion ran and handed the completion to the emitter behind
    // values still queued there, because another thread is delivering), the machine has nothing left to end, but
    // the shell cancels the emitter in every case, so what it holds does not reach the downstream.
    func cancel() {
        shell.cancel { machine in
            machine.end().map {
                ScheduledEffects(released: $0.downstream, timer: $0.timer, upstream: $0.upstream)
            }
        }
    }

    var description: String { "Timeout" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
    var playgroundDescription: Any { description }
}
