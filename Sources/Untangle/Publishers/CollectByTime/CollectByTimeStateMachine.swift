import UntangleSync

/// The pure state machine of `collect(_:options:)` by time: its phase (waiting for the upstream, collecting with the
/// upstream's subscription and the repeating timer's cancellable, completing with the completion waiting behind the
/// groups, or ended), who delivers (the delivery phase), the group being filled, the groups cut and not yet
/// delivered, and the downstream's demand (in groups). It never calls out, and it never releases the timer's
/// cancellable or a user value itself: every method that drops one hands it back for the caller to release after
/// unlocking.
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
    /// A group cut from the collected values, and whether the count cut it (rather than the timer or the end): data
    /// the group carries to its delivery, which decides where the demand it returns goes (not a phase).
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

    /// The operator's phase. Legal moves: `awaitingSubscription` to `running` (the upstream's subscription) or
    /// `ended` (a cancel); `running` to `completing` (the upstream's completion) or `ended`; `completing` to `ended`
    /// (the completion delivered, or a cancel).
    enum Phase: UInt8 {
        /// The upstream's subscription has not arrived: `downstream` is set.
        case awaitingSubscription
        /// Collecting: `subscription` and `downstream` are set, `timer` once the repeating timer started.
        case running
        /// The upstream completed: the groups left, then `terminal`, wait for the mover; `downstream` is set.
        case completing
        /// The completion went downstream, or the downstream cancelled: nothing is held.
        case ended
    }

    /// Who delivers, and whether a drain is scheduled. A drain is scheduled only when nobody moves and none is
    /// scheduled; a timer tick may start moving while a drain is scheduled (`movingWithDrainScheduled`), and a drain
    /// that starts while somebody moves does nothing (the mover's loop picks its work up).
    enum Delivery {
        /// Nobody delivers and no drain is scheduled.
        case idle
        /// A drain is scheduled (it becomes the mover when it runs, if there is work).
        case drainScheduled
        /// One thread (a tick, a drain, or the subscription's hand-over) hands groups to the downstream.
        case moving
        /// A thread moves groups on, and a drain scheduled before it started has not run yet.
        case movingWithDrainScheduled
    }

    /// The group size that cuts a group before the timer does (nil: by time only).
    let count: Int?
    private(set) var phase = Phase.awaitingSubscription
    // Performance: what the phase holds is stored beside it, not in the payload of its cases: a decision on a phase
    // with payloads copies the whole payload out of the enum and destroys the copy, on every value (a subject's values
    // collected by count 4 with a test scheduler, under callgrind: see BufferStateMachine for the same measure). The
    // phase alone decides; these four are storage, set and cleared with it.
    private var subscription: Subscription?
    private var downstream: Downstream?
    private var timer: Cancellable?
    private var terminal: Terminal?
    private(set) var delivery = Delivery.idle
    private var buffer: [Output] = []
    private var ready = RingBuffer<Group>()
    private var demand = Subscribers.Demand.none

    init(downstream: Downstream, count: Int?) {
        self.downstream = downstream
        self.count = count
    }

    /// The upstream's subscription arrived: the downstream to hand ours to (the caller is the mover until
    /// ``handedOver()``), or nil to cancel the new subscription (a second one, or one after a cancel).
    mutating func subscribed(_ subscription: Subscription) -> Downstream? {
        guard case .awaitingSubscription = phase else { return nil }
        guard case .idle = delivery else {
            impossibleEvent("CollectByTimeStateMachine: subscribed while delivering before the subscription")
        }
        phase = .running
        self.subscription = subscription
        delivery = .moving
        return downstream
    }

    /// Keeps the started timer; hands it back (to be cancelled outside the lock) if the stream already ended.
    mutating func timerStarted(_ cancellable: Cancellable) -> Cancellable? {
        guard case .running = phase else { return cancellable }
        guard timer == nil else { impossibleEvent("CollectByTimeStateMachine: timerStarted twice") }
        timer = cancellable
        return nil
    }

    /// The downstream has its subscription: the caller stops being the mover; returns whether it must schedule a
    /// drain for what became deliverable meanwhile.
    mutating func handedOver() -> Bool {
        switch delivery {
        case .moving, .movingWithDrainScheduled: stopMoving()
        case .idle, .drainScheduled: impossibleEvent("CollectByTimeStateMachine: handedOver while not moving")
        }
        return claimDrain()
    }

    /// A value arrived: the demand to return upstream, and whether the caller must schedule a drain (a group cut by
    /// count).
    mutating func receiveValue(_ value: Output) -> (Subscribers.Demand, scheduleDrain: Bool) {
        guard case .running = phase else { return (.none, false) }
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
        guard case .running = phase else { return false }
        if !buffer.isEmpty {
            ready.append(Group(values: buffer, byCount: false))
            buffer = []
        }
        return claimMover()
    }

    /// The upstream completed: the last group (on `.finished`) waits behind the others; a failure drops the values
    /// collected since the last group. Nil if the stream had already ended.
    mutating func receiveCompletion(_ completion: Subscribers.Completion<Failure>) -> Ending? {
        guard case .running = phase else { return nil }
        var dropped: [Output] = []
        switch completion {
        case .finished:
            if !buffer.isEmpty { ready.append(Group(values: buffer, byCount: false)) }
            terminal = .finished
        case .failure(let error):
            dropped = buffer
            terminal = .failure(error)
        }
        phase = .completing
        subscription = nil
        buffer = []
        return Ending(timer: timer.take(), dropped: dropped, scheduleDrain: claimDrain())
    }

    /// The downstream asked for `more` groups: the request to make upstream (nil when the upstream is not
    /// subscribed), and whether the caller must schedule a drain.
    mutating func request(_ more: Subscribers.Demand) -> (
        upstream: (Subscription, Subscribers.Demand)?, scheduleDrain: Bool
    ) {
        var upstreamRequest: (Subscription, Subscribers.Demand)?
        switch phase {
        case .running: upstreamRequest = (subscription.unsafelyUnwrapped, count.map { more * $0 } ?? .max(1))
        case .awaitingSubscription, .completing: break
        case .ended: return (nil, false)
        }
        demand += more
        return (upstreamRequest, claimDrain())
    }

    /// A scheduled drain starts: returns whether the caller became the mover.
    mutating func drainStarts() -> Bool {
        switch delivery {
        case .drainScheduled: delivery = .idle
        case .movingWithDrainScheduled: delivery = .moving
        case .idle, .moving: impossibleEvent("CollectByTimeStateMachine: drainStarts with no drain scheduled")
        }
        return claimMover()
    }

    /// The mover's next step, after the previous group returned `returned` (`lastByCount`: that group was cut by
    /// count). Also returns the upstream request that passes that demand on, if any (a group cut by count only).
    mutating func nextStep(returned: Subscribers.Demand, lastByCount: Bool) -> (
        Step, refill: (Subscription, Subscribers.Demand)?
    ) {
        switch delivery {
        case .moving, .movingWithDrainScheduled: break
        case .idle, .drainScheduled:
            impossibleEvent("CollectByTimeStateMachine: nextStep by a thread that is not the mover")
        }
        var refill: (Subscription, Subscribers.Demand)?
        switch phase {
        case .running:
            if lastByCount, returned > .none, let count {
                refill = (subscription.unsafelyUnwrapped, returned * count)
            }
        case .completing:
            break
        case .awaitingSubscription, .ended:
            stopMoving()
            return (.stop, nil)
        }
        let downstream = self.downstream.unsafelyUnwrapped
        demand += returned
        if demand > .none, let group = ready.popFirst() {
            demand -= 1
            return (.deliver(downstream, group.values, byCount: group.byCount), refill)
        }
        // Out of demand or out of groups: `.finished` follows the last group without needing demand; a failure
        // drops the groups the downstream has no demand for.
        stopMoving()
        guard case .completing = phase else { return (.stop, refill) }
        switch terminal {
        case .failure(let error)?:
            end()
            return (.complete(downstream, .failure(error), discarded: ready.takeAll()), refill)
        case .finished? where ready.isEmpty:
            end()
            return (.complete(downstream, .finished, discarded: RingBuffer()), refill)
        case .finished?, nil:
            return (.stop, refill)
        }
    }

    /// The downstream cancelled: what to cancel and release after unlocking; nil if it had already ended.
    mutating func cancel() -> Cancellation? {
        guard phase != .ended else { return nil }
        let cancellation = Cancellation(
            upstream: subscription, timer: timer, released: (downstream, buffer, ready.takeAll()))
        end()
        buffer = []
        return cancellation
    }

    /// Ends the operator, dropping what the phase held (the caller took what it releases).
    private mutating func end() {
        phase = .ended
        subscription = nil
        downstream = nil
        timer = nil
        terminal = nil
    }

    /// Whether a mover would find something to do.
    private var hasWork: Bool {
        switch phase {
        case .awaitingSubscription, .running: return demand > .none && !ready.isEmpty
        case .completing: return true
        case .ended: return false
        }
    }

    /// Becomes the mover if nobody moves and there is something to deliver.
    private mutating func claimMover() -> Bool {
        guard hasWork else { return false }
        switch delivery {
        case .idle: delivery = .moving
        case .drainScheduled: delivery = .movingWithDrainScheduled
        case .moving, .movingWithDrainScheduled: return false
        }
        return true
    }

    /// The mover stops (the callers checked that somebody moves).
    private mutating func stopMoving() {
        switch delivery {
        case .moving: delivery = .idle
        case .movingWithDrainScheduled: delivery = .drainScheduled
        case .idle, .drainScheduled: break
        }
    }

    /// Claims the one scheduled drain if something is deliverable and nobody is delivering or about to.
    private mutating func claimDrain() -> Bool {
        guard case .idle = delivery, hasWork else { return false }
        delivery = .drainScheduled
        return true
    }
}
