import Untangle

/// The pure state machine of a `retry(when:)`: the current attempt's subscription (numbered, so late signals of a
/// failed attempt are ignored), whether a failure waits for the trigger, the trigger's subscription, and the
/// downstream's outstanding demand. It never calls out.
///
/// **Demand:** `demand` is what the downstream asked for minus the values received; each new attempt is asked for
/// all of it, and later requests go to the current attempt. The trigger is asked for `.unlimited`.
/// **Thread safety:** none: always mutated under the operator's lock.
struct RetryWhenStateMachine: FanInStateMachine {
    private var attempt = 0
    private var upstream: Subscription?
    private var trigger: Subscription?
    /// An attempt failed and its error was handed to the trigger: the next trigger value starts a new attempt.
    private(set) var awaitingTrigger = false
    /// The trigger finished: no more attempts will start.
    private var triggerFinished = false
    private var demand = Subscribers.Demand.none
    private(set) var isTerminated = false

    /// Starts an attempt: returns its number (nil: the operator has ended).
    mutating func startAttempt() -> Int? {
        guard !isTerminated else { return nil }
        attempt += 1
        awaitingTrigger = false
        return attempt
    }

    /// Attempt `number`'s subscription arrived: returns the demand to request (nil: cancel it instead).
    mutating func innerSubscribed(_ number: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, number == attempt, upstream == nil, !awaitingTrigger else { return nil }
        upstream = subscription
        return demand
    }

    /// Attempt `number` sent a value: true if it is delivered (it uses up one unit of demand).
    mutating func upstreamSent(_ number: Int) -> Bool {
        guard !isTerminated, number == attempt, !awaitingTrigger else { return false }
        if demand != .unlimited, demand > .none {
            demand -= 1
        }
        return true
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
        guard !isTerminated, number == attempt, !awaitingTrigger else { return .ignore }
        let released = upstream
        upstream = nil
        if triggerFinished {
            isTerminated = true
            defer { trigger = nil }
            return .fail(cancel: trigger)
        }
        awaitingTrigger = true
        return .awaitTrigger(released: released)
    }

    /// The trigger's subscription arrived: false if it must be cancelled instead.
    mutating func triggerSubscribed(_ subscription: Subscription) -> Bool {
        guard !isTerminated, trigger == nil else { return false }
        trigger = subscription
        return true
    }

    /// The trigger sent a value: returns the number of the attempt to start, or nil to ignore the value (no
    /// failure is waiting for it).
    mutating func triggerSent() -> Int? {
        guard !isTerminated, awaitingTrigger else { return nil }
        return startAttempt()
    }

    /// Whether attempt `number` is the current, running one.
    func isCurrent(_ number: Int) -> Bool {
        !isTerminated && number == attempt && !awaitingTrigger
    }

    /// The trigger finished: true if the operator finishes now (a failure was waiting for it). Otherwise the
    /// running attempt goes on, and its failure will fail the operator.
    mutating func triggerDidFinish() -> Bool {
        guard !isTerminated else { return false }
        triggerFinished = true
        trigger = nil
        if awaitingTrigger {
            isTerminated = true
            return true
        }
        return false
    }

    /// The downstream asked for more: returns the current attempt's subscription to forward it to.
    mutating func request(_ more: Subscribers.Demand) -> [Subscription] {
        guard !isTerminated else { return [] }
        demand += more
        return upstream.map { [$0] } ?? []
    }

    /// The downstream cancelled: ends the operator and returns what to cancel (nil if it had already ended).
    mutating func terminate() -> [Subscription]? {
        end(upstreamCompleted: false, triggerCompleted: false)
    }

    /// The operator ends (attempt finished, trigger failed, downstream cancelled): returns what to cancel (nil if
    /// it had already ended). Pass what has just completed so that it is not cancelled.
    mutating func end(upstreamCompleted: Bool, triggerCompleted: Bool) -> [Subscription]? {
        guard !isTerminated else { return nil }
        isTerminated = true
        var toCancel: [Subscription] = []
        if !upstreamCompleted, let upstream { toCancel.append(upstream) }
        if !triggerCompleted, let trigger { toCancel.append(trigger) }
        upstream = nil
        trigger = nil
        return toCancel
    }
}
