/// The pure state machine of a switchToLatest: the outer subscription, which inner is current (a generation
/// number), the current inner's subscription, and the downstream's outstanding demand. It never calls out.
///
/// Switching bumps the generation under the lock. Every value carries its inner's generation through the emitter
/// and is checked again when it is about to be delivered (``deliver(_:)``), so a value of a replaced inner is dropped
/// even if it was queued before the switch: no delivery of an older inner starts after a switch is decided.
///
/// **Demand:** the outer publisher is asked for `.unlimited`. `demand` is what the downstream asked for and has not
/// received yet; a new inner is asked for all of it (the demand carries over), and later downstream requests go to
/// the current inner only.
/// **Thread safety:** none: always mutated under the switch's lock.
struct SwitchToLatestStateMachine {
    private enum Outer {
        case awaiting
        case subscribed(Subscription)
        case finished
    }

    private var outer = Outer.awaiting
    /// The current inner's generation (0: none yet).
    private var generation = 0
    private var inner: Subscription?
    /// The current inner has not finished.
    private var innerIsLive = false
    private var demand = Subscribers.Demand.none
    private(set) var isTerminated = false

    /// The outer subscription arrived: false if it must be cancelled instead.
    mutating func outerSubscribed(_ subscription: Subscription) -> Bool {
        guard !isTerminated, case .awaiting = outer else { return false }
        outer = .subscribed(subscription)
        return true
    }

    /// A new inner publisher arrived: returns its generation and the replaced inner's subscription to cancel (nil:
    /// the switch has ended; ignore the publisher).
    mutating func switched() -> (generation: Int, replaced: Subscription?)? {
        guard !isTerminated else { return nil }
        generation += 1
        let replaced = inner
        inner = nil
        innerIsLive = true
        return (generation, replaced)
    }

    /// An inner's subscription arrived: returns the demand to request (nil: it was replaced already; cancel it).
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, id == generation, innerIsLive, inner == nil else { return nil }
        inner = subscription
        return demand
    }

    /// A value of inner `id` is about to be delivered: true if that inner is still current (the value uses up one
    /// unit of demand); false if it was replaced (drop the value).
    mutating func deliver(_ id: Int) -> Bool {
        guard id == generation, !isTerminated else { return false }
        if demand > .none {
            demand -= 1
        }
        return true
    }

    /// The downstream asked for more: returns the current inner's subscription to forward the request to.
    mutating func request(_ more: Subscribers.Demand) -> Subscription? {
        guard !isTerminated else { return nil }
        demand += more
        return inner
    }

    /// Inner `id` finished: `finish` if the outer has finished too; `released` is its subscription, to be released
    /// after unlocking. A replaced inner's completion is ignored.
    mutating func innerFinished(_ id: Int) -> (finish: Bool, released: Subscription?) {
        guard !isTerminated, id == generation, innerIsLive else { return (false, nil) }
        innerIsLive = false
        let released = inner
        inner = nil
        if case .finished = outer {
            isTerminated = true
            return (true, released)
        }
        return (false, released)
    }

    /// The outer publisher finished: true if no inner is live (the switch finishes now).
    mutating func outerFinished() -> Bool {
        guard !isTerminated else { return false }
        outer = .finished
        if !innerIsLive {
            isTerminated = true
            return true
        }
        return false
    }

    /// A failure or the downstream's cancel: ends the switch and returns what to cancel (nil if it had already
    /// ended). A source that has just failed is not cancelled.
    mutating func terminate(failedInner: Int? = nil, outerFailed: Bool = false) -> [Subscription]? {
        guard !isTerminated else { return nil }
        if let failedInner, failedInner != generation { return nil }
        isTerminated = true
        var toCancel: [Subscription] = []
        if failedInner == nil, let inner {
            toCancel.append(inner)
        }
        if !outerFailed, case .subscribed(let subscription) = outer {
            toCancel.append(subscription)
        }
        inner = nil
        outer = .finished
        return toCancel
    }
}
