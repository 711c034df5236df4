import Untangle

/// The pure state machine of a `retry(when:)`: its phase (an attempt running while the trigger is live, the last
/// attempt running after the trigger finished, a failure waiting for the trigger, or ended) with the current
/// attempt's and the trigger's subscriptions, the current attempt's number (so late signals of a failed attempt are
/// ignored), and the downstream's outstanding demand. It never calls out.
///
/// **Demand:** `demand` is what the downstream asked for minus the values received; each new attempt is asked for
/// all of it, and later requests go to the current attempt. The trigger is asked for `.unlimited`.
/// **Thread safety:** none: always mutated under the operator's lock.
struct RetryWhenStateMachine: FanInStateMachine {
    /// The operator's phase, each with the subscriptions it holds (nil until they arrive).
    enum Phase {
        /// An attempt runs and the trigger is live: a failure is handed to the trigger.
        case running(upstream: Subscription?, trigger: Subscription?)
        /// An attempt runs after the trigger finished: no more attempts will start, a failure fails the operator.
        case lastAttempt(upstream: Subscription?)
        /// An attempt failed and its error was handed to the trigger: the next trigger value starts a new attempt.
        case awaitingTrigger(trigger: Subscription?)
        /// Ended (an attempt finished, a failure or the trigger's completion ended it, or the downstream cancelled).
        case terminated
    }

    private var phase = Phase.running(upstream: nil, trigger: nil)
    private var attempt = 0
    private var demand = Subscribers.Demand.none

    /// An attempt failed and its error was handed to the trigger: the next trigger value starts a new attempt.
    var awaitingTrigger: Bool {
        if case .awaitingTrigger = phase { return true }
        return false
    }

    /// Whether the operator has ended.
    var isTerminated: Bool {
        if case .terminated = phase { return true }
        return false
    }

    /// Starts an attempt (the first one, or the next once a failure waited for the trigger): returns its number
    /// (nil: the operator has ended).
    mutating func startAttempt() -> Int? {
        switch phase {
        case .terminated: return nil
        case .awaitingTrigger(let trigger): phase = .running(upstream: nil, trigger: trigger)
        case .running, .lastAttempt:
            guard attempt == 0 else { impossibleEvent("RetryWhenStateMachine: startAttempt while an attempt runs") }
        }
        attempt += 1
        return attempt
    }

    /// Attempt `number`'s subscription arrived: returns the demand to request (nil: cancel it instead).
    mutating func innerSubscribed(_ number: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard number == attempt else { return nil }
        switch phase {
        case .running(nil, let trigger): phase = .running(upstream: subscription, trigger: trigger)
        case .lastAttempt(nil): phase = .lastAttempt(upstream: subscription)
        case .running, .lastAttempt, .awaitingTrigger, .terminated: return nil
        }
        return demand
    }

    static var decidesValues: Bool { true }

    /// Attempt `number` sent a value: delivered if it is the current attempt (it uses up one unit of demand).
    mutating func innerValue(_ number: Int) -> FanInValue {
        guard isCurrent(number) else { return .drop }
        if demand != .unlimited, demand > .none {
            demand -= 1
        }
        return .deliver
    }

    /// What to do when an attempt fails.
    enum FailureAction {
        case ignore
        /// Hand the error to the trigger and wait; `released` is the failed subscription.
        case awaitTrigger(released: Subscription?)
        /// The trigger has finished: fail downstream (and cancel the trigger).
        case fail(cancel: Subscription?)
    }

    mutating func upstreamFailed(_ number: Int) -> FailureAction {
        guard number == attempt else { return .ignore }
        switch phase {
        case .running(let upstream, let trigger):
            phase = .awaitingTrigger(trigger: trigger)
            return .awaitTrigger(released: upstream)
        case .lastAttempt:
            phase = .terminated
            return .fail(cancel: nil)
        case .awaitingTrigger, .terminated:
            return .ignore
        }
    }

    /// The trigger's subscription arrived: false if it must be cancelled instead (a second one, or after the
    /// trigger finished or the operator ended).
    mutating func triggerSubscribed(_ subscription: Subscription) -> Bool {
        switch phase {
        case .running(let upstream, nil): phase = .running(upstream: upstream, trigger: subscription)
        case .awaitingTrigger(nil): phase = .awaitingTrigger(trigger: subscription)
        case .running, .awaitingTrigger, .lastAttempt, .terminated: return false
        }
        return true
    }

    /// The trigger sent a value: returns the number of the attempt to start, or nil to ignore the value (no
    /// failure is waiting for it).
    mutating func triggerSent() -> Int? {
        guard case .awaitingTrigger = phase else { return nil }
        return startAttempt()
    }

    /// Whether attempt `number` is the current, running one.
    func isCurrent(_ number: Int) -> Bool {
        switch phase {
        case .running, .lastAttempt: return number == attempt
        case .awaitingTrigger, .terminated: return false
        }
    }

    /// The trigger finished: true if the operator finishes now (a failure was waiting for it). Otherwise the
    /// running attempt goes on as the last one, and its failure will fail the operator.
    mutating func triggerDidFinish() -> Bool {
        switch phase {
        case .running(let upstream, _):
            phase = .lastAttempt(upstream: upstream)
            return false
        case .awaitingTrigger:
            phase = .terminated
            return true
        case .lastAttempt, .terminated:
            return false
        }
    }

    /// The downstream asked for more: returns the current attempt's subscription to forward it to.
    mutating func request(_ more: Subscribers.Demand) -> [Subscription] {
        let upstream: Subscription?
        switch phase {
        case .terminated: return []
        case .running(let current, _), .lastAttempt(let current): upstream = current
        case .awaitingTrigger: upstream = nil
        }
        demand += more
        return upstream.map { [$0] } ?? []
    }

    /// The downstream cancelled: ends the operator and returns what to cancel (nil if it had already ended).
    mutating func cancelled() -> FanInEnding? {
        end(upstreamCompleted: false, triggerCompleted: false).map { FanInEnding(cancel: $0) }
    }

    /// The operator ends (attempt finished, trigger failed, downstream cancelled): returns what to cancel (nil if
    /// it had already ended). Pass what has just completed so that it is not cancelled.
    mutating func end(upstreamCompleted: Bool, triggerCompleted: Bool) -> [Subscription]? {
        let upstream: Subscription?
        let trigger: Subscription?
        switch phase {
        case .terminated: return nil
        case .running(let current, let live): (upstream, trigger) = (current, live)
        case .lastAttempt(let current): (upstream, trigger) = (current, nil)
        case .awaitingTrigger(let live): (upstream, trigger) = (nil, live)
        }
        phase = .terminated
        var toCancel: [Subscription] = []
        if !upstreamCompleted, let upstream { toCancel.append(upstream) }
        if !triggerCompleted, let trigger { toCancel.append(trigger) }
        return toCancel
    }
}
