/// Where a ``ReducerSubscription`` stands: the phase of its ``ReducerStateMachine``, carrying the upstream
/// subscription while running and whether the held final signal starts with a value.
///
/// **Demand:** none.
/// **Thread safety:** a value, kept under the subscription's lock.
@usableFromInline
package enum ReducerPhase {
    /// Before the upstream's subscription: requests are remembered.
    case awaiting
    /// The upstream's subscription arrived and the upstream has not ended.
    case running(Subscription)
    /// The upstream ended with a final signal (the machine's `held`) the downstream has not requested yet;
    /// `hasValue`: it starts with a value, followed by the completion.
    case pending(hasValue: Bool)
    /// The final value is going downstream; its completion follows unless the downstream cancels meanwhile (the
    /// downstream stays in the machine so that a `cancel()` made inside that `receive` can take it).
    case deliveringValue
    /// The final signal went (or is going) downstream, or the downstream cancelled: nothing is held.
    case terminated
}

/// The pure state of a ``ReducerSubscription``: every decision it makes under its lock, as a value with no
/// callouts: its ``ReducerPhase``, the downstream until the end, the final signal while it waits for demand, and
/// the downstream's demand. Each transition returns what to do and everything it dropped, so that the caller
/// releases those after unlocking.
///
/// ```swift
/// var machine = ReducerStateMachine<Recorder<Int, Never>, Final>(downstream: recorder, policy: .passThrough)
/// _ = machine.receivedSubscription(subscription)        // .awaiting -> .running
/// let finish = machine.finish(final, needsDemand: true, hasValue: true)   // .pending until a request
/// ```
///
/// Impossible events (the subscription's own sequencing broken) stop the program with a message naming the
/// machine, the event and the phase.
///
/// **Demand:** tracks the downstream's outstanding demand; the final value (and, per the policy, a bare
/// `.finished`) waits for it.
/// **Thread safety:** none: a value the subscription keeps in a `LockedBox`.
@usableFromInline
package struct ReducerStateMachine<Downstream, Final> {
    @usableFromInline var phase = ReducerPhase.awaiting
    // The downstream and the held final signal are kept beside the phase, not in it: a generic payload in the phase
    // would make code that is not specialized look up the enum's type metadata on every emitted value.
    /// The downstream; nil once terminated.
    @usableFromInline var downstream: Downstream?
    /// The final signal while `.pending`.
    @usableFromInline var held: Final?
    /// The downstream's outstanding demand (what it requested, minus the values emitted, plus what they returned).
    @usableFromInline var demand = Subscribers.Demand.none
    @usableFromInline let policy: ReducerUpstreamDemand

    @inlinable
    package init(downstream: Downstream, policy: ReducerUpstreamDemand) {
        self.downstream = downstream
        self.policy = policy
    }

    /// The upstream handed us its subscription: the downstream to pass ours to, or nil to cancel the new one (a
    /// second subscription, or one arriving after the end).
    @inlinable
    package mutating func receivedSubscription(_ subscription: Subscription) -> Downstream? {
        guard case .awaiting = phase else { return nil }
        phase = .running(subscription)
        return downstream
    }

    /// After the downstream got its subscription: the upstream to ask for `.unlimited`, if the policy asks at
    /// subscription and the downstream did not cancel meanwhile. (`.unlimitedOnFirstRequest` asks from `request`:
    /// the downstream cannot request before it has this subscription, which comes after the upstream's.)
    @inlinable
    package func eagerRequest() -> Subscription? {
        guard case .running(let subscription) = phase else { return nil }
        switch policy {
        case .unlimitedAtSubscription, .unlimitedAtSubscriptionFinishingWithoutDemand:
            return subscription
        case .unlimitedOnFirstRequest, .passThrough, .passThroughTrappingUnrequested:
            return nil
        }
    }

    /// Hands the final signal over, once: the downstream to deliver it to. A final value keeps the downstream until
    /// ``valueDelivered()``, so that a cancel made while receiving it drops the completion that would follow.
    @inlinable
    mutating func handOver(hasValue: Bool) -> Downstream? {
        held = nil
        guard hasValue else {
            phase = .terminated
            defer { downstream = nil }
            return downstream
        }
        phase = .deliveringValue
        return downstream
    }

    /// The final value was delivered: the downstream to send the completion to, nil if it cancelled meanwhile.
    @inlinable
    package mutating func valueDelivered() -> Downstream? {
        switch phase {
        case .deliveringValue:
            phase = .terminated
            defer { downstream = nil }
            return downstream
        case .terminated:
            return nil
        case .awaiting, .running, .pending:
            preconditionFailure("ReducerStateMachine: final value delivered in \(phase)")
        }
    }

    @usableFromInline
    package enum RequestAction {
        case none
        case requestUpstream(Subscription, Subscribers.Demand)
        case deliver(Downstream, Final)
    }

    /// The downstream requested `demand` (also before the upstream's subscription arrived: it is remembered).
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand) -> RequestAction {
        switch phase {
        case .terminated, .deliveringValue:
            return .none
        case .pending(let hasValue):
            // The upstream already ended and its final signal waited for exactly this: hand it over, once.
            guard let final = held, let downstream = handOver(hasValue: hasValue) else {
                preconditionFailure("ReducerStateMachine: request in pending without a result or a downstream")
            }
            return .deliver(downstream, final)
        case .awaiting:
            self.demand += demand
            return .none
        case .running(let subscription):
            let before = self.demand
            self.demand += demand
            switch policy {
            case .passThrough, .passThroughTrappingUnrequested:
                return .requestUpstream(subscription, demand)
            case .unlimitedOnFirstRequest:
                return before == .none ? .requestUpstream(subscription, .unlimited) : .none
            case .unlimitedAtSubscription, .unlimitedAtSubscriptionFinishingWithoutDemand:
                return .none
            }
        }
    }

    @usableFromInline
    package enum EmitDecision {
        /// The downstream cancelled (or the operator ended): drop the value.
        case drop
        /// Deliver to this downstream.
        case deliver(Downstream)
        /// The upstream sent a value the downstream never asked for (replaceError traps, as Combine does).
        case unrequested
    }

    /// A pass-through value is about to go downstream: consumes one demand.
    @inlinable @inline(__always)
    package mutating func willEmit() -> EmitDecision {
        switch phase {
        case .running:
            guard let downstream else { preconditionFailure("ReducerStateMachine: running without a downstream") }
            if policy == .passThroughTrappingUnrequested && demand == .none { return .unrequested }
            demand -= 1
            return .deliver(downstream)
        case .pending, .deliveringValue, .terminated:
            return .drop
        case .awaiting:
            preconditionFailure("ReducerStateMachine: a value to emit in awaiting")
        }
    }

    /// The downstream returned `more` from a pass-through value.
    @inlinable @inline(__always)
    package mutating func didEmit(returning more: Subscribers.Demand) {
        if case .running = phase { demand += more }
    }

    @usableFromInline
    package struct FinishAction {
        /// The upstream subscription to cancel (an early finish) or just to release (the upstream completed).
        @usableFromInline
        package var upstream: Subscription?
        /// Deliver this now (nil: wait for demand, or the downstream already cancelled).
        @usableFromInline
        package var deliver: (Downstream, Final)?

        @inlinable
        init(upstream: Subscription?, deliver: (Downstream, Final)?) {
            self.upstream = upstream
            self.deliver = deliver
        }
    }

    /// The upstream ended (or the operator ended early). `needsDemand`: the final signal may only go downstream
    /// once something was requested (a value, or a reducer's bare `.finished`); a failure needs no demand.
    /// `hasValue`: the final signal is a value followed by the completion.
    @inlinable
    package mutating func finish(_ final: Final, needsDemand: Bool, hasValue: Bool) -> FinishAction {
        switch phase {
        case .running(let subscription):
            guard !needsDemand || demand > .none else {
                phase = .pending(hasValue: hasValue)
                held = final
                return FinishAction(upstream: subscription, deliver: nil)
            }
            guard let downstream = handOver(hasValue: hasValue) else {
                preconditionFailure("ReducerStateMachine: running without a downstream")
            }
            return FinishAction(upstream: subscription, deliver: (downstream, final))
        case .terminated:
            // The downstream cancelled first: nothing goes downstream.
            return FinishAction(upstream: nil, deliver: nil)
        case .awaiting, .pending, .deliveringValue:
            preconditionFailure("ReducerStateMachine: finish in \(phase)")
        }
    }

    @usableFromInline
    package struct CancelAction {
        @usableFromInline
        package var upstream: Subscription?
        @usableFromInline
        package var released: (Downstream?, Final?)

        @inlinable
        init(upstream: Subscription?, released: (Downstream?, Final?)) {
            self.upstream = upstream
            self.released = released
        }
    }

    /// The downstream cancelled: the upstream to cancel, and what to release after unlocking. Before the upstream's
    /// subscription arrived this does nothing, as in Combine (the downstream cannot hold this subscription yet).
    @inlinable
    package mutating func cancel() -> CancelAction {
        var upstream: Subscription?
        switch phase {
        case .awaiting, .terminated:
            return CancelAction(upstream: nil, released: (nil, nil))
        case .running(let subscription):
            upstream = subscription
        case .pending, .deliveringValue:
            upstream = nil
        }
        phase = .terminated
        defer {
            downstream = nil
            held = nil
        }
        return CancelAction(upstream: upstream, released: (downstream, held))
    }

    /// A word for the subscription's mirror.
    @inlinable
    var statusDescription: String {
        switch phase {
        case .awaiting: return "awaiting subscription"
        case .running: return "subscribed"
        case .pending: return "holding the result until requested"
        case .deliveringValue, .terminated: return "terminal"
        }
    }
}
