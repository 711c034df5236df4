import UntangleSync

/// The subscription behind every operator with a main upstream and a trigger that may signal the downstream:
/// `drop(untilOutputFrom:)`, `prefix(untilOutputFrom:)`, and in UntangleExtras `sample` and `withLatestFrom`. It is
/// the subscriber it gives the upstream, the owner of the subscriber it gives the trigger (``Trigger``, sharing its
/// combine identifier, as Combine's do), and the subscription it gives the downstream.
///
/// Every signal is decided under one lock by the ``TriggerStateMachine``, which asks the operator (a pure
/// ``TriggerOperator``) and keeps the turn to call the downstream; every callout (the downstream, a source's
/// request or cancel, the `output` closure, releasing what the machine let go of) happens after unlocking, here and
/// nowhere else.
///
/// ```swift
/// TriggerSubscription(downstream: subscriber, operator: PrefixUntilOutputStateMachine(), output: { $0 })
///     .start(upstream: upstream, trigger: other)
/// ```
///
/// **Demand:** per the operator's ``TriggerOperator/demand``.
/// **Thread safety:** the upstream, the trigger and the downstream's `request`/`cancel` may signal from any threads;
/// the downstream receives one call at a time and nothing after its last completion or its own cancel.
@usableFromInline
package final class TriggerSubscription<Operator: TriggerOperator, Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
where Downstream.Input == Operator.Output, Downstream.Failure == Operator.Failure {
    @usableFromInline package typealias Input = Operator.Input
    @usableFromInline package typealias Failure = Operator.Failure
    @usableFromInline typealias Machine = TriggerStateMachine<Operator, Downstream>

    @usableFromInline let state: LockedBox<Machine>
    @usableFromInline let output: (Operator.Pending) -> Operator.Output

    /// - Parameter output: turns a delivered upstream value into the downstream's (`withLatestFrom`'s selector);
    ///   runs on the upstream's thread with no lock held.
    @inlinable
    package init(
        downstream: Downstream, operator: Operator, output: @escaping (Operator.Pending) -> Operator.Output
    ) {
        state = LockedBox(tracking: Machine(downstream: downstream, operator: `operator`))
        self.output = output
    }

    /// Subscribes the downstream and the sources in the operator's ``TriggerOperator/start`` order.
    @inlinable
    package func start<Upstream: Publisher, Other: Publisher>(upstream: Upstream, trigger: Other)
    where
        Upstream.Output == Operator.Input, Upstream.Failure == Operator.Failure, Other.Output == Operator.Signal,
        Other.Failure == Operator.SignalFailure
    {
        switch Operator.start {
        case .downstreamThenTriggerThenUpstream:
            drive(state.withCriticalSection { $0.subscribeDownstream(on: .current) })
            trigger.subscribe(Trigger(owner: self))
            upstream.subscribe(self)
        case .downstreamThenUpstreamThenTrigger:
            drive(state.withCriticalSection { $0.subscribeDownstream(on: .current) })
            upstream.subscribe(self)
            trigger.subscribe(Trigger(owner: self))
        case .triggerThenUpstreamWithDownstream:
            trigger.subscribe(Trigger(owner: self))
            upstream.subscribe(self)
        }
    }

    // MARK: Callouts, after unlocking

    /// Makes the calls the turn allows, one after the other, until the machine takes the turn back.
    @inlinable
    func drive(_ first: Machine.Turn?) {
        var turn = first
        while let (downstream, callout) = turn {
            CalloutCheck.assertNoLockHeld("a trigger operator calling its downstream")
            var more = Subscribers.Demand.none
            switch callout {
            case .subscription: downstream.receive(subscription: self)
            case .value(let value): more = downstream.receive(value)
            case .completion(let completion): downstream.receive(completion: completion)
            }
            // Held until the turn is given back: after its last completion the machine lets go of the downstream,
            // and the last reference must go after unlocking.
            turn = withExtendedLifetime(downstream) { calloutReturned(returning: more) }
        }
    }

    /// Gives the turn back after a call, or keeps it for what was queued meanwhile, and passes returned demand on.
    @inlinable @inline(__always)
    func calloutReturned(returning more: Subscribers.Demand) -> Machine.Turn? {
        let thread = ThreadID.current
        let keepsTurn: Bool
        if case .counted = Operator.demand, more > .none {
            let returned = state.withCriticalSection { $0.calloutReturned(returning: more, on: thread) }
            CalloutCheck.assertNoLockHeld("a trigger operator passing demand on")
            returned.forward?.request(more)
            keepsTurn = returned.keepsTurn
        } else {
            // No demand to count and pass on (the usual value): nothing but the turn, no `Subscription` to copy.
            keepsTurn = state.withCriticalSection { $0.turnReturned(on: thread) }
        }
        guard keepsTurn else { return nil }
        let (turn, released) = state.withCriticalSection { $0.nextTurn(on: thread) }
        withExtendedLifetime(released) {}
        return turn
    }

    /// Carries out what the machine decided: cancels, releases, passes a request on, then calls the downstream.
    @inlinable
    func perform(_ action: Machine.Action) {
        CalloutCheck.assertNoLockHeld("a trigger operator acting on its decision")
        action.effects.cancelUpstream?.cancel()
        action.effects.cancelTrigger?.cancel()
        withExtendedLifetime((action.effects.released, action.effects.releasedValue, action.released)) {}
        if let (subscription, demand) = action.request { subscription.request(demand) }
        drive(action.turn)
    }

    /// Requests an admitted subscription's demand, or cancels a rejected one.
    @inlinable
    func admit(_ subscription: Subscription, _ admission: UpstreamAdmission) {
        admission.perform(on: subscription, operator: "a trigger operator")
    }

    // MARK: Upstream

    @inlinable
    package func receive(subscription: Subscription) {
        let (admission, turn) = state.withCriticalSection { $0.upstreamSubscribed(subscription, on: .current) }
        drive(turn)
        admit(subscription, admission)
    }

    // One lock round-trip to decide and take the turn, one to give it back; the operator's `output` and the
    // downstream run in between, with no lock held.
    @inlinable
    package func receive(_ input: Operator.Input) -> Subscribers.Demand {
        let thread = ThreadID.current
        var downstream: Downstream?
        switch state.withCriticalSection({ $0.upstreamSent(input, on: thread, taking: &downstream) }) {
        case .skip(let demand):
            return demand
        case .keep(let replaced):
            withExtendedLifetime(replaced) {}
            return .none
        case .deliver(let pending):
            guard let downstream else {
                // Pass-through: another thread is delivering the last completion. Counted: the value waits.
                guard case .counted = Operator.demand else { return .none }
                CalloutCheck.assertNoLockHeld("a trigger operator running its output")
                let value = output(pending)
                let (turn, dropped) = state.withCriticalSection { $0.offer(value, on: thread) }
                withExtendedLifetime(dropped) {}
                drive(turn)
                return .none
            }
            CalloutCheck.assertNoLockHeld("a trigger operator delivering a value")
            let more = downstream.receive(output(pending))
            drive(withExtendedLifetime(downstream) { calloutReturned(returning: more) })
            // Counted: the returned demand was counted and passed on as a request.
            if case .counted = Operator.demand { return .none }
            return more
        }
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Operator.Failure>) {
        perform(state.withCriticalSection { $0.signal(on: .current) { $0.upstreamCompleted(completion) } })
    }

    // MARK: Trigger

    @inlinable
    func triggerSubscribed(_ subscription: Subscription) {
        admit(subscription, state.withCriticalSection { $0.triggerSubscribed(subscription) })
    }

    // An operator that decides its trigger values on a per-value path (withLatestFrom, sample) answers in one
    // critical section with its own loadable types; a value it delivers takes the free turn as an upstream value
    // does, one lock round trip to decide and one to give the turn back. The general path builds an `Action`
    // (address-only: its `Subscription`s), fine for the signals that come once (completions, a trigger that ends).
    @inlinable
    func triggerSent(_ signal: Operator.Signal) {
        let thread = ThreadID.current
        if Operator.decidesTriggerValues {
            switch state.withCriticalSection({ $0.triggerValue(signal, on: thread) }) {
            case .keep(let replaced):
                withExtendedLifetime(replaced) {}
                return
            case .deliver(let downstream, let value):
                CalloutCheck.assertNoLockHeld("a trigger operator delivering a trigger's value")
                let more = downstream.receive(value)
                drive(withExtendedLifetime(downstream) { calloutReturned(returning: more) })
                return
            case .queued(let turn, let dropped):
                withExtendedLifetime(dropped) {}
                drive(turn)
                return
            case .decide:
                break
            }
        }
        perform(state.withCriticalSection { $0.signal(on: thread) { $0.triggerSent(signal) } })
    }

    @inlinable
    func triggerCompleted(_ completion: Subscribers.Completion<Operator.SignalFailure>) {
        perform(state.withCriticalSection { $0.signal(on: .current) { $0.triggerCompleted(completion) } })
    }

    // MARK: Downstream

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        // Combine's drop/prefix(untilOutputFrom:) pass even `.none` upstream; a counting operator traps on it.
        if case .counted = Operator.demand { demand.preconditionNonZero() }
        perform(state.withCriticalSection { $0.requested(demand, on: .current) })
    }

    @inlinable
    package func cancel() {
        perform(state.withCriticalSection { $0.cancelled() })
    }

    /// The subscriber given to the trigger; it shares the subscription's combine identifier.
    @usableFromInline
    package struct Trigger: Subscriber {
        @usableFromInline package typealias Input = Operator.Signal
        @usableFromInline package typealias Failure = Operator.SignalFailure

        @usableFromInline let owner: TriggerSubscription

        @inlinable
        init(owner: TriggerSubscription) {
            self.owner = owner
        }

        @inlinable
        package var combineIdentifier: CombineIdentifier { owner.combineIdentifier }

        @inlinable
        package func receive(subscription: Subscription) { owner.triggerSubscribed(subscription) }

        @inlinable
        package func receive(_ input: Operator.Signal) -> Subscribers.Demand {
            owner.triggerSent(input)
            return .none
        }

        @inlinable
        package func receive(completion: Subscribers.Completion<Operator.SignalFailure>) {
            owner.triggerCompleted(completion)
        }
    }
}

// A described operator's subscription and trigger subscriber show its name and an empty mirror, as Combine's
// drop(untilOutputFrom:) does; prefix(untilOutputFrom:)'s conform to none of these, as Combine's.
extension TriggerSubscription: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Operator: DescribedTriggerOperator {
    @inlinable
    package var description: String { Operator.name }
    @inlinable
    package var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    @inlinable
    package var playgroundDescription: Any { Operator.name }
}

extension TriggerSubscription.Trigger: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Operator: DescribedTriggerOperator {
    @inlinable
    package var description: String { Operator.name }
    @inlinable
    package var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    @inlinable
    package var playgroundDescription: Any { Operator.name }
}
