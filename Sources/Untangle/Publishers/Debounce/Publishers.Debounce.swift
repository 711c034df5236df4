extension Publisher {
    /// Publishes elements only after a specified time interval elapses between events.
    ///
    /// Each upstream value restarts a `dueTime` countdown on `scheduler`; when the countdown ends with no newer
    /// value, the latest value is delivered on the scheduler. Values replaced during the countdown are discarded.
    /// When the upstream completes, the completion is delivered on the scheduler at once and a value still counting
    /// down is discarded (as Apple's Combine does).
    ///
    /// ```swift
    /// let cancellable = searchField.textChanges
    ///     .debounce(for: .milliseconds(300), scheduler: DispatchQueue.main)
    ///     .sink { search($0) }
    /// ```
    ///
    /// **Demand:** the upstream is asked for `.unlimited`; a value whose quiet period ends while the subscriber has no
    /// outstanding demand is dropped.
    /// **Thread safety:** values and completion are delivered on the scheduler, one at a time. `request`/`cancel` may
    /// be called from any thread; once `cancel()` returns, no countdown still running delivers anything.
    public func debounce<S: Scheduler>(
        for dueTime: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}

extension Publishers {
    /// A publisher that publishes elements only after a specified time interval elapses between events.
    ///
    /// ```swift
    /// let settled = Publishers.Debounce(upstream: subject, dueTime: .seconds(1), scheduler: DispatchQueue.main,
    ///                                   options: nil)
    /// ```
    ///
    /// **Demand:** `.unlimited` upstream; see ``Publisher/debounce(for:scheduler:options:)``.
    /// **Thread safety:** see ``Publisher/debounce(for:scheduler:options:)``.
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The amount of time the publisher should wait before publishing an element.
        public let dueTime: Context.SchedulerTimeType.Stride

        /// The scheduler on which this publisher delivers elements.
        public let scheduler: Context

        /// Scheduler options that customize this publisher's delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that publishes elements only after a specified time interval elapses between events.
        public init(
            upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?
        ) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            receive(subscriber: subscriber, deliveringPendingValueOnFinish: false)
        }

        /// Attaches the subscriber; with `deliveringPendingValueOnFinish`, a value still counting down when the
        /// upstream finishes is delivered on the scheduler before the completion (as soon as the subscriber has
        /// demand for it), as RxSwift's `debounce` does; a failure still drops it. UntangleExtras'
        /// `debounce(for:scheduler:options:onFinish:)` is built on it.
        ///
        /// ```swift
        /// debounce.receive(subscriber: subscriber, deliveringPendingValueOnFinish: true)
        /// ```
        package func receive<S: Subscriber>(subscriber: S, deliveringPendingValueOnFinish: Bool)
        where Upstream.Output == S.Input, Upstream.Failure == S.Failure {
            upstream.subscribe(
                DebounceSubscription(
                    downstream: subscriber, dueTime: dueTime, scheduler: scheduler, options: options,
                    deliversPendingValueOnFinish: deliveringPendingValueOnFinish))
        }
    }
}

/// The subscriber `debounce` gives its upstream and the subscription it gives its downstream.
///
/// **Demand:** see ``Publisher/debounce(for:scheduler:options:)``.
/// **Thread safety:** see ``Publisher/debounce(for:scheduler:options:)``.
private final class DebounceSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    // @unchecked Sendable: mutable state lives in the shell (a LockedBox and the emitter's own lock).
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let shell: ScheduledShell<Downstream, DebounceStateMachine<Input, Downstream>, Context>
    private let dueTime: Context.SchedulerTimeType.Stride

    init(
        downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
        options: Context.SchedulerOptions?, deliversPendingValueOnFinish: Bool
    ) {
        shell = ScheduledShell(
            downstream: downstream,
            machine: DebounceStateMachine(
                downstream: downstream, deliversPendingValueOnFinish: deliversPendingValueOnFinish),
            scheduler: scheduler, options: options)
        self.dueTime = dueTime
    }

    func receive(subscription: Subscription) {
        guard shell.withCriticalSection({ $0.receiveSubscription(subscription) }) != nil else {
            shell.refuse(subscription)
            return
        }
        shell.start(subscription: self)
        shell.request(.unlimited, from: subscription)
    }

    // Each value arms a repeating timer (as Apple's) for its generation (see `ScheduledShell.armTimer`). At firing
    // time the generation check under the lock decides; the emitter's own check then makes a firing that races
    // `cancel()` deliver nothing once `cancel()` has returned. The timer holds the subscription and the downstream
    // strongly until the scheduler lets go of it, as Apple's does.
    func receive(_ input: Input) -> Subscribers.Demand {
        guard let accepted = shell.withCriticalSection({ $0.receiveValue(input) }) else { return .none }
        shell.perform(ScheduledEffects(replaced: accepted.replaced))
        shell.armTimer(after: dueTime, generation: accepted.generation, keepingAlive: accepted.downstream) {
            [self] generation in
            fire(generation: generation)
        }
        shell.perform(ScheduledEffects(timer: accepted.stale))
        return .none
    }

    private func fire(generation: Int) {
        switch shell.withCriticalSection({ $0.fire(generation: generation) }) {
        case .ignore(let timer):
            shell.perform(ScheduledEffects(timer: timer))
        case .deliver(let value, let timer):
            shell.perform(ScheduledEffects(timer: timer, value: value))
        }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let finished: Bool
        if case .finished = completion { finished = true } else { finished = false }
        switch shell.withCriticalSection({ $0.upstreamCompleted(finished: finished, own: self) }) {
        case nil:
            return
        case .end(let timer, let downstream, let value)?:
            shell.perform(ScheduledEffects(replaced: value, released: downstream, timer: timer))
            let shell = self.shell
            // As Apple's: scheduled without the operator's options.
            shell.schedule(options: nil) {
                shell.perform(ScheduledEffects(completion: completion))
            }
        case .deliverPendingValue(let timer, let upstream)?:
            shell.perform(ScheduledEffects(released: upstream, timer: timer))
            scheduleFinishingCheck()
        }
    }

    // RxSwift's rule (`deliversPendingValueOnFinish`): the value counting down when the upstream finished is
    // delivered, then the completion, by a check scheduled like the completion (without the operator's options).
    // The check decides under the lock: with demand, the value and the completion go to the emitter together;
    // without, the machine waits, and the request that brings demand (or the demand the downstream returns from an
    // earlier value, handed to `request` by the machine) schedules the check again. A cancel in between ends the
    // machine, so the check finds it over; a check that runs after `cancel()` returned delivers nothing (the emitter
    // drops it). While finishing, the machine holds this subscription (for that returned demand): the cycle ends
    // with the stream.
    private func scheduleFinishingCheck() {
        shell.schedule(options: nil) { [self] in
            switch shell.withCriticalSection({ $0.finishingCheck() }) {
            case .deliver(let value, let released)?:
                shell.perform(ScheduledEffects(released: released, value: value, completion: .finished))
            case .awaitDemand?, nil:
                return
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        if shell.withCriticalSection({ $0.addDemand(demand) }) {
            scheduleFinishingCheck()
        }
    }

    func cancel() {
        shell.cancel { machine in
            machine.end().map { ended in
                // The operator's own subscription is held only while finishing: no tuple to box otherwise.
                let released: Any? = ended.own == nil ? ended.downstream : (ended.downstream, ended.own)
                return ScheduledEffects(
                    replaced: ended.value, released: released, timer: ended.timer, upstream: ended.upstream)
            }
        }
    }

    var description: String { "Debounce" }

    var playgroundDescription: Any { description }

    // Apple's children: the downstream, the unused demand and the latest value (read under the lock).
    var customMirror: Mirror {
        let (downstream, demand, value) = shell.withCriticalSection { ($0.downstream, $0.demand, $0.currentValue) }
        let downstreamChild: Any = downstream.map { $0 as Any } ?? (downstream as Any)
        let children: [Mirror.Child] = [
            ("downstream", downstreamChild), ("downstreamDemand", demand), ("currentValue", value as Any),
        ]
        return Mirror(self, children: children)
    }
}
