import UntangleSync

// `@usableFromInline` with `@inlinable` members so that the `@inlinable` ``FlatMapSubscription`` is specialized
// together with it: the buffer holds the inners' values, so the machine is generic over them.
/// The pure state machine of a flatMap: the upstream subscription, the live inner publishers and their
/// subscriptions, the downstream's unmet demand, the inner values waiting for that demand, and who has finished. It
/// never calls out: every method returns what the caller must do after unlocking.
///
/// The demand model is Apple's. The upstream is asked for `maxPublishers` when it subscribes and for one more each
/// time an inner finishes. An inner is asked for one value when it subscribes (for `.unlimited` once the downstream's
/// demand is unlimited). An inner value that meets unmet downstream demand is delivered at once and the inner gets
/// one more unit back as the demand its `receive(_:)` returns; a value that does not is buffered, and when a later
/// downstream request delivers it the inner that sent it is asked for one more. So a live inner has at most one
/// value waiting, and the buffer never exceeds what the inners were asked for (Just inners aside: they are done the
/// moment they deliver, so, like in Apple's Combine, their slot is freed and the upstream asked for one more even
/// when their value waits in the buffer).
///
/// Order: while the buffer holds anything or a thread is draining it, every new inner value joins the buffer's end,
/// so values of one inner reach the downstream in the order the inner sent them. Only one thread drains at a time.
///
/// **Demand:** as above; the downstream's own requests are never forwarded to the inners, except the switch to
/// `.unlimited`, which asks every live inner for `.unlimited`.
/// **Thread safety:** none: always mutated under the flatMap's lock.
@usableFromInline
struct FlatMapStateMachine<Value>: FanInStateMachine {
    /// A buffered value and the id of the inner that sent it (nil: a Just, which is done).
    @usableFromInline typealias Buffered = (inner: Int?, value: Value)

    /// Where the flatMap is in its life.
    @usableFromInline
    enum Phase {
        case running
        /// The upstream failed and `thread` is cancelling the inners: Apple's Combine holds its lock meanwhile, so
        /// an upstream completion made from inside one of those cancels (on that thread) traps there.
        case cancellingAfterUpstreamFailure(ThreadID)
        /// Finished, failed or cancelled: nothing more is delivered or requested.
        case ended
    }

    /// Whether a thread is delivering the buffer.
    @usableFromInline
    enum Drain {
        case idle
        case running
    }

    /// The outer upstream (the publisher of publishers): ended once it completed or the flatMap ended.
    @usableFromInline var upstream = UpstreamSlot.awaiting
    @usableFromInline var phase = Phase.running
    @usableFromInline var drain = Drain.idle
    /// Live inners in creation order; the subscription is nil until it arrives.
    @usableFromInline var inners: [(id: Int, subscription: Subscription?)] = []
    @usableFromInline var nextInnerID = 0
    /// What the downstream asked for and has not been given yet.
    @usableFromInline var demand = Subscribers.Demand.none
    /// Inner values waiting for demand, with the id of the inner that sent each (nil: a Just, which is done).
    @usableFromInline var buffer = RingBuffer<Buffered>()
    @usableFromInline let maxPublishers: Subscribers.Demand

    @inlinable
    init(maxPublishers: Subscribers.Demand) {
        self.maxPublishers = maxPublishers
    }

    @inlinable
    var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    /// Nothing is waiting and nobody is delivering: a value may go straight to the downstream.
    @inlinable
    var isSteady: Bool {
        buffer.isEmpty && drain == .idle
    }

    /// Whether every source has finished and nothing waits: the flatMap finishes.
    @inlinable
    var isDone: Bool {
        upstream.isEnded && inners.isEmpty && isSteady
    }

    // MARK: Upstream

    /// The upstream subscription arrived: returns the demand to request from it, `maxPublishers` even when it is
    /// `.none`, as Apple's Combine does (nil: cancel it).
    @inlinable
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard isRunning, upstream.accept(subscription) else { return nil }
        return maxPublishers
    }

    /// An upstream value produced a new inner publisher: returns its id (nil: the flatMap has ended; do not call the
    /// transform nor subscribe).
    @inlinable
    mutating func innerCreated() -> Int? {
        guard isRunning else { return nil }
        let id = nextInnerID
        nextInnerID += 1
        inners.append((id, nil))
        return id
    }

    /// What a Just's value does (see `FlatMapSubscription.receiveJust`).
    @usableFromInline
    enum JustAction {
        /// The flatMap has ended: the value is dropped.
        case ignore
        /// Deliver the value now, then ask `requestUpstream` for one more (the Just is done, so its slot under
        /// `maxPublishers` is free again). `steady`: demand and `maxPublishers` are both unlimited and nothing waits,
        /// so every later Just gets the same answer (until the flatMap ends) and the caller may stop asking.
        case deliver(requestUpstream: Subscription?, steady: Bool)
        /// The value was buffered; ask `requestUpstream` for one more (the Just is done all the same).
        case buffered(requestUpstream: Subscription?)
    }

    /// The value of a `Just` inner (the transform's result for an upstream value; the caller asked ``isRunning``
    /// before calling the transform, like an ordinary inner's ``innerCreated()``): a Just delivers its one value as
    /// soon as it is asked and finishes right after, so the whole inner lifecycle (created, subscribed, delivered or
    /// buffered, finished) collapses into this one transition.
    @inlinable
    mutating func justValue(_ value: Value) -> JustAction {
        guard isRunning else { return .ignore }
        var requestUpstream: Subscription?
        if maxPublishers != .unlimited {
            requestUpstream = upstream.subscription
        }
        guard isSteady, demand > .none else {
            buffer.append((nil, value))
            return .buffered(requestUpstream: requestUpstream)
        }
        if demand != .unlimited {
            demand -= 1
        }
        return .deliver(
            requestUpstream: requestUpstream, steady: demand == .unlimited && maxPublishers == .unlimited)
    }

    /// The upstream finished: `finish` if the flatMap finishes now (no inner is live and nothing waits); `released`
    /// is the upstream's subscription, to be released after unlocking.
    @inlinable
    mutating func upstreamFinished(on thread: ThreadID) -> (finish: Bool, released: Subscription?) {
        trapIfReenteredDuringUpstreamFailure(on: thread)
        guard isRunning else { return (false, nil) }
        let released = upstream.end()
        if isDone {
            phase = .ended
            return (true, released)
        }
        return (false, released)
    }

    /// The upstream failed: ends the flatMap and returns the inner subscriptions to cancel, and the buffered values
    /// and the upstream's subscription to release, outside the lock (nil if it had already ended). The caller calls
    /// ``upstreamFailureCancellationsDone()`` after cancelling.
    @inlinable
    mutating func upstreamFailed(on thread: ThreadID) -> FanInEnding? {
        trapIfReenteredDuringUpstreamFailure(on: thread)
        guard isRunning else { return nil }
        phase = .cancellingAfterUpstreamFailure(thread)
        let upstreamSubscription = upstream.end()
        let cancel = inners.compactMap(\.subscription)
        inners = []
        return FanInEnding(cancel: cancel, released: (releaseBuffer(), upstreamSubscription))
    }

    /// The inners' cancels made after the upstream's failure have returned: the flatMap has ended.
    @inlinable
    mutating func upstreamFailureCancellationsDone() {
        guard case .cancellingAfterUpstreamFailure = phase else {
            impossibleEvent("FlatMapStateMachine: upstreamFailureCancellationsDone() in \(phase), not after a failure")
        }
        phase = .ended
    }

    // Apple's Combine cancels the inners after an upstream failure while holding its (non-recursive) lock, so an
    // upstream completion sent from inside one of those cancels crashes it. A completion from another thread
    // meanwhile just waits for the lock there, then is ignored: here too (ignored), since it never blocks.
    @inlinable
    func trapIfReenteredDuringUpstreamFailure(on thread: ThreadID) {
        if case .cancellingAfterUpstreamFailure(let canceller) = phase, canceller == thread {
            fatalError(
                "FlatMapStateMachine: the upstream completed again from inside an inner's cancel() while flatMap was "
                    + "cancelling its inners after the upstream's failure")
        }
    }

    // MARK: Inners

    /// An inner's subscription arrived: returns the demand to request from it, one value, or `.unlimited` once the
    /// downstream's demand is (nil: cancel it instead).
    @inlinable
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        checkIssued(id, 0..<nextInnerID, "innerSubscribed")
        guard isRunning, let index = inners.firstIndex(where: { $0.id == id }), inners[index].subscription == nil
        else { return nil }
        inners[index].subscription = subscription
        return demand == .unlimited ? .unlimited : .max(1)
    }

    /// What an inner's value does.
    @usableFromInline
    enum InnerValueAction {
        /// The flatMap has ended: drop the value.
        case ignore
        /// Buffered: return `.none` to the inner.
        case buffered
        /// Deliver it now, then return `.max(1)` to the inner (it used one unit of a bounded demand).
        case deliverReplenishing
        /// Deliver it now and return `.none` (the demand is unlimited). `steady`: nothing waits and nobody drains,
        /// which stays true for good, so the inner may deliver later values without asking.
        case deliverUnlimited(steady: Bool)
    }

    /// An inner delivered a value.
    @inlinable
    mutating func innerValue(_ id: Int, _ value: Value) -> InnerValueAction {
        checkIssued(id, 0..<nextInnerID, "innerValue")
        guard isRunning else { return .ignore }
        guard isSteady, demand > .none else {
            buffer.append((id, value))
            return .buffered
        }
        if demand == .unlimited {
            return .deliverUnlimited(steady: true)
        }
        demand -= 1
        return .deliverReplenishing
    }

    /// What to do when an inner finishes.
    @usableFromInline
    enum FinishAction {
        case none
        /// Ask the upstream for one more value (a slot under `maxPublishers` opened).
        case requestOneMore(Subscription)
        /// Everything finished and nothing waits: finish the downstream.
        case finish
    }

    /// An inner finished. Also returns its subscription, to be released after unlocking. Like Apple's Combine, an
    /// inner that finishes twice asks the upstream for one more value twice.
    @inlinable
    mutating func innerFinished(_ id: Int) -> (FinishAction, released: Subscription?) {
        checkIssued(id, 0..<nextInnerID, "innerFinished")
        guard isRunning else { return (.none, nil) }
        let slot = inners.firstIndex(where: { $0.id == id }).flatMap { inners.remove(at: $0).subscription }
        if isDone {
            phase = .ended
            return (.finish, slot)
        }
        if maxPublishers != .unlimited, let subscription = upstream.subscription {
            return (.requestOneMore(subscription), slot)
        }
        return (.none, slot)
    }

    /// An inner failed: ends the flatMap and returns every other source to cancel (the inners first, then the
    /// upstream) and the buffered values to release (nil if it had already ended).
    @inlinable
    mutating func innerFailed(_ id: Int) -> FanInEnding? {
        checkIssued(id, 0..<nextInnerID, "innerFailed")
        guard isRunning else { return nil }
        return end(except: id)
    }

    // MARK: Downstream

    /// What a downstream request (or demand returned from `receive(_:)`) does.
    @usableFromInline
    struct RequestAction {
        /// This thread now drains the buffer (``nextBuffered()`` until it says stop).
        @usableFromInline var drain = false
        /// The demand just became unlimited: ask each of these inners for `.unlimited` (after draining).
        @usableFromInline var unleash: [Subscription] = []

        @inlinable
        init() {}
    }

    /// The downstream asked for more (by request or by returning demand).
    @inlinable
    mutating func downstreamAsked(_ more: Subscribers.Demand) -> RequestAction {
        var action = RequestAction()
        guard isRunning else { return action }
        let wasUnlimited = demand == .unlimited
        demand += more
        if !wasUnlimited, demand == .unlimited {
            action.unleash = inners.compactMap(\.subscription)
        }
        if drain == .idle, !buffer.isEmpty {
            drain = .running
            action.drain = true
        }
        return action
    }

    /// The drainer's next step.
    @usableFromInline
    enum DrainStep {
        /// Deliver `value`, then (bounded demand) ask `replenish`, the inner that sent it, for one more.
        case deliver(Value, replenish: Subscription?)
        /// Nothing more to deliver now: stop draining.
        case stop
        /// The buffer is empty and every source had finished: finish the downstream.
        case finish
    }

    /// The draining thread takes the next buffered value the demand allows, or stops draining.
    @inlinable
    mutating func nextBuffered() -> DrainStep {
        guard drain == .running else {
            impossibleEvent("FlatMapStateMachine: nextBuffered() while no thread drains the buffer")
        }
        guard isRunning else {
            drain = .idle
            return .stop
        }
        if demand > .none, let next = buffer.popFirst() {
            var replenish: Subscription?
            if demand != .unlimited {
                demand -= 1
                if let inner = next.inner, let index = inners.firstIndex(where: { $0.id == inner }) {
                    replenish = inners[index].subscription
                }
            }
            return .deliver(next.value, replenish: replenish)
        }
        drain = .idle
        if isDone {
            phase = .ended
            return .finish
        }
        return .stop
    }

    /// The downstream cancelled: ends the flatMap and returns every source to cancel (the inners first, then the
    /// upstream) and the buffered values to release (nil if it had already ended).
    @inlinable
    mutating func cancelled() -> FanInEnding? {
        guard isRunning else { return nil }
        return end(except: nil)
    }

    @inlinable
    mutating func end(except failedInner: Int?) -> FanInEnding {
        phase = .ended
        var cancel = inners.filter { $0.id != failedInner }.compactMap(\.subscription)
        if let subscription = upstream.end() {
            cancel.append(subscription)
        }
        inners = []
        return FanInEnding(cancel: cancel, released: releaseBuffer())
    }

    /// Empties the buffer, returning its values for the caller to release outside the lock (their deinit is user
    /// code).
    @inlinable
    mutating func releaseBuffer() -> RingBuffer<Buffered> {
        buffer.takeAll()
    }
}
