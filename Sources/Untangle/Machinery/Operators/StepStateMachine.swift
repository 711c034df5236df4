/// Where a ``StepSubscription`` stands: the phase of its ``StepStateMachine``.
///
/// **Demand:** none.
/// **Thread safety:** a value, kept under the subscription's lock.
@usableFromInline
package enum StepPhase {
    /// Before the upstream's subscription.
    case awaiting
    /// The upstream's subscription arrived: values flow.
    case live
    /// An `.emitThenFinish` step cancelled the upstream and its last value is going downstream: a `cancel()` made
    /// inside that `receive` takes the downstream, and with it the `.finished` that would follow.
    case finishing
    /// The downstream cancelled, a step ended the operator, or the upstream completed: nothing is held.
    case ended
}

/// The pure state of a ``StepSubscription``: where the operator stands (a ``StepPhase``), the upstream subscription
/// while live, the downstream until the end, the last upstream value kept for a mirror and the hook run once at the
/// end. It never calls out: each transition returns what the subscription does after
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
    @usableFromInline var phase = StepPhase.awaiting
    // The phase carries no data: the subscription and the downstream are kept beside it, each set for exactly the
    // phases named below. Every value reads the phase, and code that is not specialized (every operator whose
    // `receive(subscriber:)` is not inlinable) copies a phase with a payload, and looks up the type metadata of a
    // generic one, on each read: with the downstream in the phase's cases, `removeDuplicates` took about 1,000
    // instructions more per value than before this machine, and about 700 fewer with it beside.
    /// The upstream's subscription: set in `.live` only.
    @usableFromInline var upstream: Subscription?
    /// The downstream: set in every phase but `.ended` (released on cancel and after the completion).
    @usableFromInline var downstream: Downstream?
    /// The last upstream value, kept only for a `.downstreamAndLastInput` mirror.
    @usableFromInline var lastInput: Input?
    /// Runs once, after unlocking, when the operator ends (see ``StepSubscription``'s `onEnd`).
    @usableFromInline var onEnd: (() -> Void)?

    @inlinable
    package init(downstream: Downstream, onEnd: (() -> Void)?) {
        self.downstream = downstream
        self.onEnd = onEnd
    }

    /// What an ending transition hands back: the upstream subscription to cancel (or release), the downstream to
    /// deliver a last signal to (or release), and the end hook to run, each after unlocking.
    @usableFromInline
    package typealias Ending = (upstream: Subscription?, downstream: Downstream?, onEnd: (() -> Void)?)

    /// Moves to `.ended`; returns what the machine held and the end hook (taken: it runs once).
    @inlinable
    mutating func end() -> Ending {
        defer {
            phase = .ended
            upstream = nil
            downstream = nil
            onEnd = nil
        }
        return (upstream, downstream, onEnd)
    }

    /// The upstream's subscription arrived: the downstream to pass the step subscription to, or nil to cancel
    /// `subscription` (a second one, or one arriving after the end).
    @inlinable
    package mutating func subscribed(_ subscription: Subscription) -> Downstream? {
        guard case .awaiting = phase else { return nil }
        phase = .live
        upstream = subscription
        return downstream
    }

    /// An upstream value arrived: the downstream to run the step for and deliver to, or nil to drop the value (the
    /// operator has ended, or, per `early`, a value before the subscription is ignored). A value before the
    /// subscription that the operator's Combine counterpart treats as fatal stops the program, naming `name`.
    @inlinable @inline(__always)
    package mutating func valueArrived(early: StepBehavior.Early, name: @autoclosure () -> String) -> Downstream? {
        switch phase {
        case .live:
            return downstream
        case .awaiting:
            switch early {
            case .deliver: return downstream
            case .ignore: return nil
            case .trap: preconditionFailure("\(name()) received a value before its subscription")
            }
        case .finishing, .ended:
            return nil
        }
    }

    /// Keeps `input` for the mirror; returns the value it replaces, to release after unlocking.
    @inlinable @inline(__always)
    package mutating func record(_ input: Input) -> Input? {
        let replaced = lastInput
        lastInput = input
        return replaced
    }

    /// An `.emitThenFinish` step: the upstream ends (its subscription is returned, to cancel) while the downstream
    /// stays for the last value. `deliver` is false if the downstream cancelled since the value arrived.
    @inlinable
    package mutating func lastValueWillGo() -> (cancel: Subscription?, deliver: Bool) {
        switch phase {
        case .live:
            phase = .finishing
            defer { upstream = nil }
            return (upstream, true)
        case .awaiting:
            phase = .finishing
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
            preconditionFailure("StepStateMachine: last value delivered in \(phase)")
        }
    }

    /// The upstream completed: ends, with the downstream to complete (nil: it cancelled, the operator is
    /// delivering its last value, or, per `early`, a completion before the subscription is ignored). A completion
    /// before the subscription that the operator's Combine counterpart treats as fatal stops the program.
    @inlinable
    package mutating func completed(early: StepBehavior.Early, name: @autoclosure () -> String) -> Ending {
        switch phase {
        case .live:
            return end()
        case .awaiting:
            switch early {
            case .deliver: return end()
            case .ignore: return (nil, nil, nil)
            case .trap: preconditionFailure("\(name()) received a completion before its subscription")
            }
        case .finishing, .ended:
            return (nil, nil, nil)
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
        case .live:
            guard let upstream else { preconditionFailure("StepStateMachine: live without a subscription") }
            return .forward(upstream)
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
        case .awaiting, .live: return (downstream, upstream, false, lastInput)
        case .finishing, .ended: return (downstream, nil, true, lastInput)
        }
    }
}
