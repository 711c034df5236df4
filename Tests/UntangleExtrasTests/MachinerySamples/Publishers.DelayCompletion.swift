import Untangle

// Machinery.md's scheduler sample on the core's `ScheduledShell`: tested (DelayCompletionSampleTests), not shipped.
extension Publisher {
    /// Passes values at once and delivers the completion `interval` later, on `scheduler`.
    func delayCompletion<Context: Scheduler>(
        for interval: Context.SchedulerTimeType.Stride, scheduler: Context
    ) -> DelayCompletion<Self, Context> { DelayCompletion(upstream: self, interval: interval, scheduler: scheduler) }
}

struct DelayCompletion<Upstream: Publisher, Context: Scheduler>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure
    let upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let shell = ScheduledShell(
            downstream: subscriber, machine: DelayCompletionStateMachine(), scheduler: scheduler, options: nil)
        upstream.subscribe(Inner(shell: shell, interval: interval))
    }

    // Each signal decides under the shell's lock, then the shell makes the callouts, unlocked.
    final class Inner<S: Subscriber>: Subscriber, Subscription, CustomStringConvertible
    where S.Input == Output, S.Failure == Failure {
        typealias Machine = DelayCompletionStateMachine
        let shell: ScheduledShell<S, Machine, Context>, interval: Context.SchedulerTimeType.Stride
        init(shell: ScheduledShell<S, Machine, Context>, interval: Context.SchedulerTimeType.Stride) {
            (self.shell, self.interval) = (shell, interval)
        }

        func receive(subscription: Subscription) {
            let accepted = shell.withCriticalSection { $0.upstream.accept(subscription) }
            accepted ? shell.start(subscription: self) : shell.refuse(subscription)
        }
        func receive(_ input: Output) -> Subscribers.Demand {
            shell.perform(ScheduledEffects(value: input))
            return .none
        }
        func receive(completion: Subscribers.Completion<Failure>) {
            // Nil: the stream already ended (cancelled). A completion firing after a cancel is dropped by the emitter.
            guard shell.withCriticalSection({ $0.upstream.end() }) != nil else { return }
            shell.core.schedule(afterInterval: interval) { [shell] in
                shell.perform(ScheduledEffects(completion: completion))
            }
        }
        func request(_ demand: Subscribers.Demand) {
            shell.withCriticalSection { $0.upstream.subscription }.map { shell.request(demand, from: $0) }
        }
        func cancel() { shell.cancel { ScheduledEffects(upstream: $0.upstream.end()) } }
        var description: String { "DelayCompletion" }
    }
}

/// The sample's one decision under the shell's lock, beside the upstream's standing: where returned demand goes.
struct DelayCompletionStateMachine: ScheduledStateMachine {
    var upstream = UpstreamSlot.awaiting
    func downstreamReturned(_ demand: Subscribers.Demand) -> Subscription? { upstream.subscription }
}
