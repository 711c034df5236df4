/// A publisher running a ``TriggerSubscription`` over an upstream and a trigger, with a fresh operator for each
/// subscriber: an operator of that shape written outside the core (a sample, an UntangleExtras operator with no
/// public type of its own) needs no publisher type.
///
/// ```swift
/// TriggerPublisher(upstream: self, trigger: valve, operator: PausableStateMachine.init, output: { $0 })
/// ```
///
/// **Demand:** per the operator's ``TriggerOperator/demand``.
/// **Thread safety:** as ``TriggerSubscription``; `makeOperator` runs on the subscribing thread.
@usableFromInline
package struct TriggerPublisher<Upstream: Publisher, Trigger: Publisher, Operator: TriggerOperator>: Publisher
where
    Upstream.Output == Operator.Input, Upstream.Failure == Operator.Failure, Trigger.Output == Operator.Signal,
    Trigger.Failure == Operator.SignalFailure
{
    @usableFromInline package typealias Output = Operator.Output
    @usableFromInline package typealias Failure = Operator.Failure

    @usableFromInline let upstream: Upstream
    @usableFromInline let trigger: Trigger
    @usableFromInline let makeOperator: () -> Operator
    @usableFromInline let output: (Operator.Pending) -> Operator.Output

    /// `makeOperator` makes each subscription's operator; `output` turns a delivered upstream value into the
    /// downstream's (see ``TriggerSubscription``).
    @inlinable
    package init(
        upstream: Upstream, trigger: Trigger, operator makeOperator: @escaping () -> Operator,
        output: @escaping (Operator.Pending) -> Operator.Output
    ) {
        self.upstream = upstream
        self.trigger = trigger
        self.makeOperator = makeOperator
        self.output = output
    }

    @inlinable
    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        TriggerSubscription(downstream: subscriber, operator: makeOperator(), output: output)
            .start(upstream: upstream, trigger: trigger)
    }
}
