/// The pure state of a ``StepSubscription``: where the operator stands, as one enum whose cases carry what each
/// phase holds (the upstream subscription, the downstream), plus the last upstream value kept for a mirror and the
/// hook run once at the end. It never calls out: each transition returns what the subscription does after
/// unlocking, and what it dropped, to be released there.
///
/// ```swift
/// var machine = StepStateMachine<Recorder<Int, Never>, Int>(downstream: recorder, onEnd: nil)
/// let downstream = machine.subscribed(subscription)   // .awaiting -> .live; nil: cancel the subscription
/// ```
///
/// Impossible events (the subscription's own sequencing broken, not an upstream's misbehaviour) stop the program
/// with a message naming the machine, the event and the phase.
///
/// **Demand:** none of its own: the step subscription passes requests straight upstream.
/// **Thread safety:** none: a value the subscription keeps in a `LockedBox`.
@usableFromInline
package struct StepStateMachine<Downstream, Input> {
    @usableFromInline
    enum Phase {
        /// Before the upstream's subscription.
        case awaiting(Downstream)
        /// The upstream's subscription arrived: values flow.
        case live(Subscription, Downstream)
        /// An `.emitThenFinish` step cancelled the upstream and its last value is going downstream: a `cancel()`
        /// made inside that `receive` takes the downstream, and with it the `.finished` that would follow.
        case finishing(Downstream)
        /// The downstream cancelled, a step ended the operator, or the upstream completed: nothing is held.
        case ended
    }

    @usableFromInline var phase: Phase
    /// The last upstream value, kept only for a `.downstreamAndLastInput` mirror.
    @usableFromInline var lastInput: Input?
    /// Runs once, after unlocking, when the operator ends (see ``StepSubscription``'s `onEnd`).
    @usableFromInline var onEnd: (() -> Void)?

    @inlinable
    package init(downstream: Downstream, onEnd: (() -> Void)?) {
        phase = .awaiting(downstream)
        self.onEnd = onEnd
    }

    /// What an ending transition hands back: the upstream subscription to cancel (or release), the downstream to
    /// deliver a last signal to (or release), and the end hook to run, each after unlocking.
    @usableFromInline
    package typealias Ending = (upstream: Subscription?, downstream: Downstream?, onEnd: (() -> Void)?)

    /// Moves to `.ended`; returns what the phase held and the end hook (taken: it runs once).
    @inlinable
    mutating func end() -> Ending {
        let hook = onEnd
        onEnd = nil
        switch phase {
        case .awaiting(let downstream), .finishing(let downstream):
            phase = .ended
            return (nil, downstream, hook)
        case .live(let subscription, let downstream):
            phase = .ended
            return (subscription, downstream, hook)
        case .ended:
            return (nil, nil, hook)
        }
    }

    /// The upstream's subscription arrived: the downstream to pass the step subscription to, or nil to cancel
    /// `subscription` (a second one, or one arriving after the end).
    @inlinable
    package mutating func subscribed(_ subscription: Subscription) -> Downstream? {
        guard case .awaiting(let downstream) = phase else { return nil }
        phase = .live(subscription, downstream)
        return downstream
    }

    /// What becomes of one upstream value.
    @usableFromInline
    package enum ValueAction {
        /// Run the step, then deliver to this downstream.
        case deliver(Downstream)
        /// Drop it: the operator has ended, or (per the operator's behaviour) a value before the subscription.
        case drop
        /// A value before the subscription, which this operator's Combine counterpart treats as a fatal error.
        case trap
    }

    /// An upstream value arrived; `early` says what the operator does with one that precedes its subscription.
    @inlinable
    package func valueArrived(early: StepBehavior.Early) -> ValueAction {
        switch phase {
        case .live(_, let downstream):
            return .deliver(downstream)
        case .awaiting(let downstream):
            switch early {
            case .deliver: return .deliver(downstream)
            case .ignore: return .drop
            case .trap: return .trap
            }
        case .finishing, .ended:
            return .drop
        }
    }

    /// Keeps `input` for the mirror; returns the value it replaces, to release after unlocking.
    @inlinable
    package mutating func record(_ input: Input) -> Input? {
        defer { lastInput = input }
        return lastInput
    }

    /// An `.emitThenFinish` step: the upstream ends (its subscription is returned, to cancel) while the downstream
    /// stays for the last value. `deliver` is false if the downstream cancelled since the value arrived.
    @inlinable
    package mutating func lastValueWillGo() -> (cancel: Subscription?, deliver: Bool) {
        switch phase {
        case .live(let subscription, let downstream):
            phase = .finishing(downstream)
            return (subscription, true)
        case .awaiting(let downstream):
            phase = .finishing(downstream)
            return (nil, true)
        case .ended:
            return (nil, false)
        case .finishing:
            preconditionFailure("StepStateMachine: a last value in finishing")
        }
    }

    /// The last value went downstream: the downstream to finish, nil if it cancelled meanwhile; and the end hook.
    @inlinable
    package mutating func lastValueDelivered() -> (downstream: Downstream?, onEnd: (() -> Void)?) {
        switch phase {
        case .finishing:
            let ending = end()
            return (ending.downstream, ending.onEnd)
        case .ended:
            return (nil, nil)
        case .awaiting, .live:
            preconditionFailure("StepStateMachine: last value delivered in \(phase.name)")
        }
    }

    /// The upstream completed; `early` says what the operator does with a completion that precedes its
    /// subscription. `.deliver`: ends, with the downstream to complete (nil: it cancelled); `.drop`: ignored (the
    /// operator has ended, or is delivering its last value); `.trap`: fatal, as in Combine.
    @inlinable
    package mutating func completed(early: StepBehavior.Early) -> (action: ValueAction, ending: Ending) {
        switch phase {
        case .live:
            let ending = end()
            return (ending.downstream.map(ValueAction.deliver) ?? .drop, ending)
        case .awaiting(let downstream):
            switch early {
            case .deliver: return (.deliver(downstream), end())
            case .ignore: return (.drop, (nil, nil, nil))
            case .trap: return (.trap, (nil, nil, nil))
            }
        case .finishing, .ended:
            return (.drop, (nil, nil, nil))
        }
    }

    /// What a downstream request does.
    @usableFromInline
    package enum RequestAction {
        case forward(Subscription)
        /// Before the upstream's subscription (ignored, or fatal, per the operator).
        case early
        case ignore
    }

    /// The downstream requested more.
    @inlinable
    package func request() -> RequestAction {
        switch phase {
        case .live(let subscription, _): return .forward(subscription)
        case .awaiting: return .early
        case .finishing, .ended: return .ignore
        }
    }

    /// The downstream cancelled. Before the upstream's subscription, `ignoringEarly` leaves everything as it is
    /// (the subscription, when it comes, is accepted); otherwise the operator ends.
    @inlinable
    package mutating func cancelled(ignoringEarly: Bool) -> Ending {
        if ignoringEarly, case .awaiting = phase { return (nil, nil, nil) }
        return end()
    }

    /// What a mirror shows: the downstream (nil once released), the upstream subscription (nil before it came and
    /// after the end), whether the operator has ended, and the last value.
    @inlinable
    package var snapshot: (downstream: Downstream?, upstream: Subscription?, ended: Bool, lastInput: Input?) {
        switch phase {
        case .awaiting(let downstream): return (downstream, nil, false, lastInput)
        case .live(let subscription, let downstream): return (downstream, subscription, false, lastInput)
        case .finishing(let downstream): return (downstream, nil, true, lastInput)
        case .ended: return (nil, nil, true, lastInput)
        }
    }
}

extension StepStateMachine.Phase {
    /// The phase's name, for trap messages.
    @usableFromInline
    var name: String {
        switch self {
        case .awaiting: return "awaiting"
        case .live: return "live"
        case .finishing: return "finishing"
        case .ended: return "ended"
        }
    }
}
