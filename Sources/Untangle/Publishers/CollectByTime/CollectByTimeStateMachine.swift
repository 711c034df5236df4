/// The pure state machine of `collect(_:options:)` by time: the group being filled, the groups cut and not yet
/// delivered, the downstream's demand (in groups), the completion waiting behind them, the repeating timer's
/// cancellable, and who delivers. It never calls out, and it never releases the timer's cancellable or a user value
/// itself: every method that drops one hands it back for the caller to release after unlocking.
///
/// Deliveries happen on the scheduler only, as in Apple's Combine since iOS 13.3: a timer tick delivers from its own
/// action; a group cut by count, a request that makes a waiting group deliverable, and the completion schedule a
/// *drain*. One thread at a time (the *mover*) hands groups to the downstream, one per critical section, while demand
/// lasts; a signal arriving while a mover runs only adds to the state, and the mover's loop picks it up. The mover is
/// also held while the downstream receives its subscription, so nothing reaches the downstream before it.
///
/// **Demand:** `.byTime` asks the upstream for `.max(1)` at each downstream request and returns `.max(1)` from each
/// value; `.byTimeOrCount` asks for `count * n` at a request of `n` groups, and passes the demand the downstream
/// returns from a group cut by count upstream the same way. Demand returned from a group cut by the timer counts for
/// the downstream but is not passed upstream (Apple's rule). Groups beyond the downstream's demand wait.
/// **Thread safety:** none: always mutated under the subscription's lock.
struct CollectByTimeStateMachine<Output, Failure: Error, Downstream> {
    /// A group cut from the collected values, and whether the count cut it (rather than the timer or the end).
    struct Group {
        var values: [Output]
        var byCount: Bool
    }

    enum Terminal {
        case finished
        case failure(Failure)
    }

    /// What the upstream's completion leaves to do outside the lock.
    struct Ending {
        /// The timer to stop.
        var timer: Cancellable?
        /// Values dropped by a failure, released outside the lock.
        var dropped: [Output]
        /// Whether the caller must schedule a drain.
        var scheduleDrain: Bool
    }

    /// What a cancel leaves to do outside the lock.
    struct Cancellation {
        var upstream: Subscription?
        var timer: Cancellable?
        /// Everything released: the downstream, the group being filled and the groups waiting.
        var released: (Downstream?, [Output], RingBuffer<Group>)
    }

    enum Step {
        /// Deliver this group; `byCount` decides whether the demand it returns goes upstream.
        case deliver(Downstream, [Output], byCount: Bool)
        /// Deliver the completion (`discarded`: groups a failure drops, released after unlocking); the stream is over.
        case complete(Downstream, Subscribers.Completion<Failure>, discarded: RingBuffer<Group>)
        /// Nothing to deliver now; the caller is no longer the mover.
        case stop
    }

    /// The group size that cuts a group before the timer does (nil: by time only).
    let count: Int?
    private(set) var upstream = UpstreamSlot.awaiting
    private var downstream: Downstream?
    private var buffer: [Output] = []
    private var ready = RingBuffer<Group>()
    private var demand = Subscribers.Demand.none
    private var terminal: Terminal?
    private var timer: Cancellable?
    private var moving = false
    private var drainScheduled = false

    init(downstream: Downstream, count: Int?) {
        self.downstream = downstream
        self.count = count
    }

    /// The upstream's subscription arrived: the downstream to hand ours to (the caller is the mover until
    /// ``handedOver()``), or nil to cancel the new subscription (a second one, or one after a cancel).
    mutating func subscribed(_ subscription: Subscription) -> Downstream? {
        guard case .awaiting = upstream, let downstream else { return nil }
        upstream = .subscribed(subscription)
        moving = true
        return downstream
    }

    /// Keeps the started timer; hands it back (to be cancelled outside the lock) if the stream already ended.
    mutating func timerStarted(_ cancellable: Cancellable) -> Cancellable? {
        guard case .subscribed = upstream else { return cancellable }
        timer = cancellable
        return nil
    }

    /// The downstream has its subscription: the caller stops being the mover; returns whether it must schedule a
    /// drain for what became deliverable meanwhile.
    mutating func handedOver() -> Bool {
        moving = false
        return claimDrain()
    }

    /// A value arrived: the demand to return upstream, and whether the caller must schedule a drain (a group cut by
    /// count).
    mutating func receiveValue(_ value: Output) -> (Subscribers.Demand, scheduleDrain: Bool) {
        guard case .subscribed = upstream else { return (.none, false) }
        buffer.append(value)
        guard let count else { return (.max(1), false) }
        guard buffer.count >= count else { return (.none, false) }
        ready.append(Group(values: buffer, byCount: true))
        buffer = []
        return (.none, claimDrain())
    }

    /// The timer fired (on the scheduler): cuts the group collected since the last one, if any; returns whether the
    /// caller became the mover and must deliver now.
    mutating func tick() -> Bool {
        guard case .subscribed = upstream else { return false }
        if !buffer.isEmpty {
            ready.append(Group(values: buffer, byCount: false))
            buffer = []
        }
        guard !moving, hasWork else { return false }
        moving = true
        return true
    }

    /// The upstream completed: the last group (on `.finished`) waits behind the others; a failure drops the values
    /// collected since the last group. Nil if the stream had already ended.
    mutating func receiveCompletion(_ completion: Subscribers.Completion<Failure>) -> Ending? {
        guard case .subscribed = upstream else { return nil }
        upstream = .ended
        var dropped: [Output] = []
        switch completion {
        case .finished:
            if !buffer.isEmpty { ready.append(Group(values: buffer, byCount: false)) }
            terminal = .finished
        case .failure(let error):
            dropped = buffer
            terminal = .failure(error)
        }
        buffer = []
        defer { timer = nil }
        return Ending(timer: timer, dropped: dropped, scheduleDrain: claimDrain())
    }

    /// The downstream asked for `more` groups: the request to make upstream (nil when the upstream is not
    /// subscribed), and whether the caller must schedule a drain.
    mutating func request(_ more: Subscribers.Demand) -> (
        upstream: (Subscription, Subscribers.Demand)?, scheduleDrain: Bool
    ) {
        guard downstream != nil else { return (nil, false) }
        demand += more
        var upstreamRequest: (Subscription, Subscribers.Demand)?
        if case .subscribed(let subscription) = upstream {
            upstreamRequest = (subscription, count.map { more * $0 } ?? .max(1))
        }
        return (upstreamRequest, claimDrain())
    }

    /// A scheduled drain starts: returns whether the caller became the mover.
    mutating func drainStarts() -> Bool {
        drainScheduled = false
        guard !moving, hasWork else { return false }
        moving = true
        return true
    }

    /// The mover's next step, after the previous group returned `returned` (`lastByCount`: that group was cut by
    /// count). Also returns the upstream request that passes that demand on, if any (a group cut by count only).
    mutating func nextStep(returned: Subscribers.Demand, lastByCount: Bool) -> (
        Step, refill: (Subscription, Subscribers.Demand)?
    ) {
        guard let downstream else {
            moving = false
            return (.stop, nil)
        }
        demand += returned
        var refill: (Subscription, Subscribers.Demand)?
        if lastByCount, returned > .none, let count, case .subscribed(let subscription) = upstream {
            refill = (subscription, returned * count)
        }
        if demand > .none, let group = ready.popFirst() {
            demand -= 1
            return (.deliver(downstream, group.values, byCount: group.byCount), refill)
        }
        // Out of demand or out of groups: `.finished` follows the last group without needing demand; a failure
        // drops the groups the downstream has no demand for.
        moving = false
        switch terminal {
        case .failure(let error)?:
            self.downstream = nil
            return (.complete(downstream, .failure(error), discarded: ready.takeAll()), refill)
        case .finished? where ready.isEmpty:
            self.downstream = nil
            return (.complete(downstream, .finished, discarded: RingBuffer()), refill)
        case .finished?, nil:
            return (.stop, refill)
        }
    }

    /// The downstream cancelled: what to cancel and release after unlocking; nil if it had already ended.
    mutating func cancel() -> Cancellation? {
        guard let downstream else { return nil }
        self.downstream = nil
        let cancellation = Cancellation(
            upstream: upstream.end(), timer: timer, released: (downstream, buffer, ready.takeAll()))
        timer = nil
        buffer = []
        return cancellation
    }

    /// Whether a mover would find something to do.
    private var hasWork: Bool {
        downstream != nil && (terminal != nil || (demand > .none && !ready.isEmpty))
    }

    /// Claims the one scheduled drain if something is deliverable and nobody is delivering or about to.
    private mutating func claimDrain() -> Bool {
        guard !moving, !drainScheduled, hasWork else { return false }
        drainScheduled = true
        return true
    }
}
