/// Whose turn it is to call the downstream of a ``TriggerSubscription``: the phase of its ``TriggerStateMachine``.
///
/// **Demand:** none.
/// **Thread safety:** a value, kept under the subscription's lock.
@usableFromInline
package enum TriggerTurn: Equatable {
    /// The downstream has not received its subscription yet.
    case unsubscribed
    /// Nobody is calling the downstream.
    case idle
    /// `owner` is calling the downstream; `depth` counts the nested (reentrant) calls on that thread.
    case calling(owner: ThreadID, depth: Int)
    /// The turn's holder is delivering the downstream's last completion.
    case completing
    /// The last completion was delivered, or the downstream cancelled: nothing is held.
    case ended
}

/// The pure state of a ``TriggerSubscription``: the operator's own machine (a ``TriggerOperator``) and the one
/// thing every operator of that shape needs beside it: whose turn it is to call the downstream (a ``TriggerTurn``),
/// since the upstream, the trigger and the downstream's own requests may all want to, on different threads, and no
/// lock may be held while calling it. It never calls out: each method returns what the subscription does after
/// unlocking.
///
/// A thread takes the turn under the lock before calling the downstream and hands it back, under the lock again,
/// when the call returns (``calloutReturned(returning:on:)``); if other threads queued something meanwhile (a
/// completion that found the turn taken, a value beyond the downstream's demand), it keeps the turn and delivers
/// that too (``nextTurn(on:)``). A value from the thread that holds the turn (a reentrant, nested signal, as when the
/// downstream's `request` makes the upstream send at once) is delivered at once with pass-through demand, as Combine
/// does; a completion never is: it follows the call in progress.
///
/// ```swift
/// var downstream: Recorder<Int, Never>?
/// if case .deliver(let value) = machine.upstreamSent(1, on: .current, taking: &downstream), let downstream {
///     _ = downstream.receive(value)   // after unlocking
///     _ = machine.calloutReturned(returning: .none, on: .current)
/// }
/// ```
///
/// Impossible events (the skeleton's own sequencing broken) stop the program with a message naming the machine, the
/// event and the phase.
///
/// **Demand:** per the operator's ``TriggerOperator/demand``: counted here (`demand`, `waiting`) or not at all.
/// **Thread safety:** none: the subscription keeps it in a `LockedBox` and mutates it under that lock only.
@usableFromInline
package struct TriggerStateMachine<Operator: TriggerOperator, Downstream: Subscriber>
where Downstream.Input == Operator.Output, Downstream.Failure == Operator.Failure {
    /// A completion (or, with none, just the downstream's release) queued behind the call in progress.
    @usableFromInline
    struct Ending {
        @usableFromInline var completion: Subscribers.Completion<Operator.Failure>?
        @usableFromInline var order: TriggerCompletionOrder
        /// Nothing reaches the downstream after this one: it is released.
        @usableFromInline var isLast: Bool

        @inlinable
        init(completion: Subscribers.Completion<Operator.Failure>?, order: TriggerCompletionOrder, isLast: Bool) {
            self.completion = completion
            self.order = order
            self.isLast = isLast
        }
    }

    /// One call to the downstream, made by the thread that holds the turn.
    @usableFromInline
    package enum Callout {
        case subscription
        case value(Operator.Output)
        case completion(Subscribers.Completion<Operator.Failure>)
    }

    /// The turn, taken: call this downstream, then ``calloutReturned(returning:on:)``.
    @usableFromInline
    package typealias Turn = (downstream: Downstream, callout: Callout)

    @usableFromInline var phase = TriggerTurn.unsubscribed
    // The downstream is kept beside the phase, not in it, and the value path returns no type of the machine's own:
    // code that is not specialized (an operator whose `receive(subscriber:)` is not inlinable) looks up the type
    // metadata of every generic type it touches, on every value.
    /// The downstream; nil once ended.
    @usableFromInline var downstream: Downstream?
    /// The operator's own state machine.
    @usableFromInline package var `operator`: Operator
    /// The downstream's outstanding demand (counted demand only).
    @usableFromInline var demand = Subscribers.Demand.none
    /// Values beyond the downstream's demand, oldest first (counted demand only).
    @usableFromInline var waiting: [Operator.Output] = []
    /// Completions queued behind the call in progress, in order.
    @usableFromInline var endings: [Ending] = []

    @inlinable
    package init(downstream: Downstream, operator: Operator) {
        self.downstream = downstream
        self.operator = `operator`
    }

    @inlinable @inline(__always)
    var countsDemand: Bool {
        if case .counted = Operator.demand { return true }
        return false
    }

    // MARK: The turn

    /// The downstream gets its subscription: the caller takes the turn for that call.
    @inlinable
    package mutating func subscribeDownstream(on thread: ThreadID) -> Turn {
        guard case .unsubscribed = phase, let downstream else {
            preconditionFailure("TriggerStateMachine: downstream subscription in \(phase)")
        }
        phase = .calling(owner: thread, depth: 1)
        return (downstream, .subscription)
    }

    /// What the turn's holder does next.
    @usableFromInline
    enum Next {
        /// Make this call; `isLast`: the downstream's last completion.
        case call(Callout, isLast: Bool)
        /// A bare release was queued: the downstream is released, the turn with it.
        case release
        /// Nothing can be delivered now: give the turn back.
        case nothing
    }

    /// The next thing the turn's holder does: a waiting value within demand, else the first queued completion (one
    /// that waits behind values waits for them). Takes it out of the queues; `dropped` receives the waiting values a
    /// completion drops, to be released after unlocking.
    @inlinable
    mutating func next(dropped: inout [Operator.Output]) -> Next {
        if !waiting.isEmpty, !countsDemand || demand > .none {
            if countsDemand { demand -= 1 }
            return .call(.value(waiting.removeFirst()), isLast: false)
        }
        guard let ending = endings.first else { return .nothing }
        if ending.order == .afterWaitingValues, !waiting.isEmpty { return .nothing }
        endings.removeFirst()
        if ending.order == .dropWaitingValues {
            swap(&dropped, &waiting)
        }
        guard let completion = ending.completion else { return ending.isLast ? .release : .nothing }
        return .call(.completion(completion), isLast: ending.isLast)
    }

    /// Whether the turn's holder has something to deliver (or a release to make) once its call returned.
    @inlinable @inline(__always)
    var hasQueued: Bool { !endings.isEmpty || !waiting.isEmpty }

    /// The holder of the turn goes on with the next call, or gives the turn back; a queued bare release ends the
    /// downstream's phase instead, handing the downstream to `released`.
    @inlinable
    mutating func continueTurn(dropped: inout [Operator.Output], released: inout Downstream?) -> Turn? {
        guard let downstream else {
            preconditionFailure("TriggerStateMachine: a turn in \(phase) without a downstream")
        }
        switch next(dropped: &dropped) {
        case .call(let callout, let isLast):
            if isLast { phase = .completing }
            return (downstream, callout)
        case .release:
            phase = .ended
            released = downstream
            self.downstream = nil
            return nil
        case .nothing:
            phase = .idle
            return nil
        }
    }

    /// Takes the turn if nobody holds it and something can be delivered: the first call to make. Before its
    /// subscription, the downstream gets it first. `released` receives the downstream if a queued bare release
    /// ended it.
    @inlinable
    mutating func takeTurnIfFree(
        on thread: ThreadID, dropped: inout [Operator.Output], released: inout Downstream?
    ) -> Turn? {
        switch phase {
        case .idle:
            phase = .calling(owner: thread, depth: 1)
            return continueTurn(dropped: &dropped, released: &released)
        case .unsubscribed:
            guard hasQueued, let downstream else { return nil }
            phase = .calling(owner: thread, depth: 1)
            return (downstream, .subscription)
        case .calling, .completing, .ended:
            return nil
        }
    }

    /// What the turn's holder does once its call returned.
    @usableFromInline
    package struct Returned {
        /// Pass the returned demand on to this subscription (counted demand).
        @usableFromInline package var forward: Subscription?
        /// The holder keeps the turn: something was queued meanwhile; ``nextTurn(on:)`` says what.
        @usableFromInline package var keepsTurn: Bool

        @inlinable @inline(__always)
        init(forward: Subscription?, keepsTurn: Bool) {
            self.forward = forward
            self.keepsTurn = keepsTurn
        }
    }

    /// The call the turn's holder made returned `more` (a value's returned demand; `.none` otherwise). After the
    /// last completion, the machine lets go of the downstream: the caller, still holding it, releases it after
    /// unlocking.
    @inlinable @inline(__always)
    package mutating func calloutReturned(returning more: Subscribers.Demand, on thread: ThreadID) -> Returned {
        var forward: Subscription?
        if more > .none, countsDemand {
            demand += more
            forward = `operator`.requested(more)
        }
        return Returned(forward: forward, keepsTurn: turnReturned(on: thread))
    }

    /// The call the turn's holder made returned, with no demand to count (see
    /// ``calloutReturned(returning:on:)``): whether the holder keeps the turn (``nextTurn(on:)`` says what for).
    // The per-value path's half of `calloutReturned`: a `Bool`, where `Returned` holds a `Subscription` existential
    // (address-only: copied and destroyed through value witnesses, about 400 instructions a value).
    @inlinable @inline(__always)
    package mutating func turnReturned(on thread: ThreadID) -> Bool {
        switch phase {
        case .calling(let owner, let depth):
            guard owner == thread else {
                preconditionFailure("TriggerStateMachine: callout returned on another thread than the turn's")
            }
            if depth > 1 {
                // A nested call returned: the enclosing one goes on when it returns.
                phase = .calling(owner: owner, depth: depth - 1)
                return false
            }
            guard hasQueued else {
                phase = .idle
                return false
            }
            return true
        case .completing:
            phase = .ended
            downstream = nil
        case .ended:
            // The downstream cancelled during the call: it was released then.
            break
        case .unsubscribed, .idle:
            preconditionFailure("TriggerStateMachine: callout returned in \(phase)")
        }
        return false
    }

    /// The turn's holder, told to keep the turn, takes the next call (or gives the turn back); `released` is what it
    /// let go of: the downstream after a bare release, waiting values a completion dropped.
    @inlinable
    package mutating func nextTurn(on thread: ThreadID) -> (turn: Turn?, released: (Downstream?, [Operator.Output])) {
        var released: (Downstream?, [Operator.Output]) = (nil, [])
        guard case .calling(let owner, 1) = phase, owner == thread else {
            // The downstream cancelled meanwhile.
            guard case .ended = phase else { preconditionFailure("TriggerStateMachine: next turn in \(phase)") }
            return (nil, released)
        }
        let turn = continueTurn(dropped: &released.1, released: &released.0)
        return (turn, released)
    }

    // MARK: Signals

    /// An upstream value arrived, on `thread`: the operator's decision. With `.deliver`, `downstream` receives the
    /// downstream to call when the caller took the turn (then ``calloutReturned(returning:on:)``); nil: the value
    /// cannot go now: with counted demand, turn it into the output and ``offer(_:on:)`` it; with pass-through
    /// demand, drop it (the turn's holder on another thread can only be delivering a completion, which ends the
    /// values).
    @inlinable @inline(__always)
    package mutating func upstreamSent(
        _ input: Operator.Input, on thread: ThreadID, taking downstream: inout Downstream?
    ) -> TriggerValueDecision<Operator.Pending, Operator.Kept> {
        let decision = `operator`.upstreamSent(input)
        guard case .deliver = decision else { return decision }
        switch phase {
        case .idle:
            if countsDemand {
                guard demand > .none, waiting.isEmpty else { return decision }
                demand -= 1
            }
            phase = .calling(owner: thread, depth: 1)
            downstream = self.downstream
        case .calling(let owner, let depth):
            // With pass-through demand, a value from the turn's holder is a nested signal, delivered at once.
            guard !countsDemand, owner == thread else { return decision }
            phase = .calling(owner: owner, depth: depth + 1)
            downstream = self.downstream
        case .completing, .ended:
            return .skip(returning: .none)
        case .unsubscribed:
            preconditionFailure("TriggerStateMachine: upstream value in unsubscribed")
        }
        return decision
    }

    /// A counted value that could not go at once: it waits (per ``TriggerWaiting``), and the caller takes the turn
    /// if it is free and the value can go now. `dropped` receives the values it replaced or a completion dropped.
    @inlinable
    package mutating func offer(_ value: Operator.Output, on thread: ThreadID) -> (Turn?, dropped: [Operator.Output]) {
        var dropped: [Operator.Output] = []
        switch phase {
        case .completing, .ended:
            return (nil, [value])
        case .unsubscribed, .idle, .calling:
            break
        }
        if case .counted(.latest) = Operator.demand {
            swap(&dropped, &waiting)
        }
        waiting.append(value)
        var released: Downstream?
        let turn = takeTurnIfFree(on: thread, dropped: &dropped, released: &released)
        withExtendedLifetime(released) {}  // never set: a value queues no release
        return (turn, dropped)
    }

    /// What a trigger value the operator decided on its per-value path (``TriggerOperator/triggerValue(_:)``)
    /// leads to, after unlocking.
    @usableFromInline
    package enum SignalOutcome {
        /// Nothing for the downstream: release this.
        case keep(replaced: Operator.Kept?)
        /// The caller took the turn: deliver the value to the downstream, then ``turnReturned(on:)``.
        case deliver(Downstream, Operator.Output)
        /// The value waits (for demand, or behind the call in progress); the caller makes the turn's calls if it
        /// took it, and releases what was dropped.
        case queued(Turn?, dropped: [Operator.Output])
        /// The operator did not decide: ask it ``signal(on:_:)`` with ``TriggerOperator/triggerSent(_:)``.
        case decide
    }

    /// A trigger value, on the operator's per-value path: a value to deliver takes the free turn if it can go now
    /// (as an upstream value does), else it waits as one from ``apply(_:on:)`` would.
    @inlinable @inline(__always)
    package mutating func triggerValue(_ signal: Operator.Signal, on thread: ThreadID) -> SignalOutcome {
        switch `operator`.triggerValue(signal) {
        case .keep(let replaced):
            return .keep(replaced: replaced)
        case .decide:
            return .decide
        case .deliver(let value):
            if case .idle = phase, !hasQueued, !countsDemand || demand > .none, let downstream {
                if countsDemand { demand -= 1 }
                phase = .calling(owner: thread, depth: 1)
                return .deliver(downstream, value)
            }
            let (turn, dropped) = offer(value, on: thread)
            return .queued(turn, dropped: dropped)
        }
    }

    /// What a completion, a trigger value, a request or the downstream's cancel leads to, after unlocking.
    @usableFromInline
    package struct Action {
        /// The operator's effects: what to cancel, to release.
        @usableFromInline package var effects: TriggerEffects<Operator>
        /// A request to pass on.
        @usableFromInline package var request: (Subscription, Subscribers.Demand)?
        /// The caller took the turn: make this call, then ``calloutReturned(returning:on:)``.
        @usableFromInline package var turn: Turn?
        /// Let go of: the downstream (cancelled, or released), values no longer to be delivered.
        @usableFromInline package var released: (Downstream?, [Operator.Output])

        @inlinable
        init(effects: TriggerEffects<Operator>) {
            self.effects = effects
            released = (nil, [])
        }
    }

    /// Queues the effects' value and completion for the downstream, and takes the turn if it is free.
    @inlinable
    mutating func apply(_ effects: TriggerEffects<Operator>, on thread: ThreadID) -> Action {
        var action = Action(effects: effects)
        switch phase {
        case .completing, .ended:
            // The downstream cancelled, or is receiving its last completion: what the operator still sends has
            // nobody to go to.
            if let value = effects.value { action.released.1.append(value) }
            return action
        case .unsubscribed, .idle, .calling:
            break
        }
        if let value = effects.value {
            if case .counted(.latest) = Operator.demand { swap(&action.released.1, &waiting) }
            waiting.append(value)
        }
        if effects.completion != nil || effects.endsDownstream {
            endings.append(
                Ending(completion: effects.completion, order: effects.order, isLast: effects.endsDownstream))
        }
        action.turn = takeTurnIfFree(on: thread, dropped: &action.released.1, released: &action.released.0)
        return action
    }

    /// The upstream's subscription arrived.
    @inlinable
    package mutating func upstreamSubscribed(_ subscription: Subscription, on thread: ThreadID) -> (
        UpstreamAdmission, Turn?
    ) {
        let admission = `operator`.upstreamSubscribed(subscription)
        guard admission.isAdmitted, case .triggerThenUpstreamWithDownstream = Operator.start else {
            return (admission, nil)
        }
        return (admission, subscribeDownstream(on: thread))
    }

    /// The trigger's subscription arrived.
    @inlinable
    package mutating func triggerSubscribed(_ subscription: Subscription) -> UpstreamAdmission {
        `operator`.triggerSubscribed(subscription)
    }

    /// A completion (the upstream's or the trigger's) or a trigger value: the operator's answer (`decide`),
    /// queued for the downstream, and the turn taken if it is free.
    @inlinable
    package mutating func signal(
        on thread: ThreadID, _ decide: (inout Operator) -> TriggerEffects<Operator>
    ) -> Action {
        apply(decide(&`operator`), on: thread)
    }

    /// The downstream requested `demand`: where to pass it, and (counted) the turn to deliver what waited for it.
    @inlinable
    package mutating func requested(_ demand: Subscribers.Demand, on thread: ThreadID) -> Action {
        var action = Action(effects: TriggerEffects())
        if let subscription = `operator`.requested(demand) { action.request = (subscription, demand) }
        guard countsDemand else { return action }
        self.demand += demand
        action.turn = takeTurnIfFree(on: thread, dropped: &action.released.1, released: &action.released.0)
        return action
    }

    /// The downstream cancelled: the operator's effects, and everything the machine held, to release.
    @inlinable
    package mutating func cancelled() -> Action {
        var action = Action(effects: `operator`.cancelled())
        phase = .ended
        action.released.0 = downstream
        downstream = nil
        swap(&action.released.1, &waiting)
        endings = []
        return action
    }
}
