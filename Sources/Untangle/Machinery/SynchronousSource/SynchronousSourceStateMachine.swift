/// The pure state machine of a ``SynchronousSourceSubscription``: its phase (the subscription callout running, who
/// emits, whether the subscription has ended), the downstream and the source while the subscription runs, and how
/// much demand is left. It never calls out; each method returns what the caller should do after unlocking.
///
/// **Demand:** `demand` is what the downstream requested and has not received; each element consumes one.
/// **Thread safety:** none: always mutated under the subscription's lock.
@usableFromInline
struct SynchronousSourceStateMachine<Downstream: Subscriber, Source> {
    /// What a running subscription holds: the downstream, and the source it describes and reflects (both released
    /// after unlocking when it finishes or is cancelled).
    @usableFromInline
    struct Live {
        @usableFromInline let downstream: Downstream
        @usableFromInline let source: Source

        @inlinable
        init(downstream: Downstream, source: Source) {
            self.downstream = downstream
            self.source = source
        }
    }

    /// The subscription's phase. Legal moves: `subscribing` to `emittingInSubscription` (a request on the
    /// subscribing thread) and back (out of demand), to `idle` or `emitting` (the callout returned); `idle` to
    /// `emitting` (a request) and back (out of demand); `emitting` or `emittingInSubscription` to
    /// `cancelledWhileEmitting` (a cancel) or to `ended` (the elements ran out); `cancelledWhileEmitting` to `ended`
    /// (the emitting thread noticed); `subscribing` or `idle` to `ended` (a cancel).
    //
    // The iterator and the element fetched ahead (the subscription's, outside the lock) belong to the emitting
    // thread while one emits, and to whoever moves the phase to `ended` otherwise: the canceller when nobody emits,
    // the emitting thread when it stops after a cancel or when the elements run out.
    @usableFromInline
    enum Phase {
        /// `receive(subscription:)` runs on `thread`, and nobody emits. A request made on another thread (the
        /// subscriber handed its subscription there) only adds demand: emitting there would run `receive(_:)`
        /// concurrently with the unfinished `receive(subscription:)`; the subscribing thread emits it when the
        /// callout returns.
        case subscribing(thread: ThreadID)
        /// The subscribing thread emits, nested in its `receive(subscription:)` (a request it made there, as in
        /// Apple's Combine); out of demand, it goes back to `subscribing`.
        case emittingInSubscription(thread: ThreadID)
        /// Nobody emits: the next request makes its thread the emitter.
        case idle
        /// A thread runs the emission loop; everybody else only adds demand.
        case emitting
        /// Cancelled while a thread emits: that thread stops at its next step and releases the elements.
        case cancelledWhileEmitting
        /// Finished or cancelled, and nobody emits any more: the elements are released (or being released).
        case ended
    }

    @usableFromInline var phase: Phase
    // Performance: the downstream and the source are kept beside the phase, not in the payload of its live cases.
    // There, every decision loaded the whole payload (the downstream and the source, several words for a chain of
    // operators) to switch on the phase, and copied it out of the enum and back on each move: demand-max1 went from
    // 406.0 to 426.0 instructions per element, 441.0 with the two per-element methods forced inline. The phase alone
    // decides; `live` is only storage, non-nil exactly in the live phases (`subscribing`, `emittingInSubscription`,
    // `idle`, `emitting`), released when the phase leaves them.
    @usableFromInline var live: Live?
    @usableFromInline var demand = Subscribers.Demand.none

    /// The subscription is created on the thread that will deliver `receive(subscription:)` to the downstream, so
    /// the callout is marked as in progress from the start.
    @inlinable
    init(downstream: Downstream, source: Source, subscribingThread: ThreadID) {
        phase = .subscribing(thread: subscribingThread)
        live = Live(downstream: downstream, source: source)
    }

    /// What the subscription describes and reflects while it runs (nil once it finished or was cancelled).
    @inlinable
    var source: Source? {
        live?.source
    }

    /// Whether the subscription was cancelled or has finished.
    @inlinable
    var isOver: Bool {
        switch phase {
        case .subscribing, .emittingInSubscription, .idle, .emitting: return false
        case .cancelledWhileEmitting, .ended: return true
        }
    }

    /// Adds demand; returns the downstream if the caller must become the emitter. A request from inside the callout
    /// on the subscribing thread emits at once, nested, as in Apple's Combine.
    @inlinable
    mutating func request(_ more: Subscribers.Demand, on thread: ThreadID) -> Downstream? {
        switch phase {
        case .emitting, .emittingInSubscription:
            demand += more
            return nil
        case .idle:
            demand += more
            phase = .emitting
            return live.unsafelyUnwrapped.downstream
        case .subscribing(let subscribing):
            demand += more
            guard subscribing == thread else { return nil }
            phase = .emittingInSubscription(thread: subscribing)
            return live.unsafelyUnwrapped.downstream
        case .cancelledWhileEmitting, .ended:
            return nil
        }
    }

    /// `receive(subscription:)` returned: returns the downstream if demand requested meanwhile from another thread
    /// must now be emitted by the caller.
    @inlinable
    mutating func subscriptionCalloutReturned() -> Downstream? {
        switch phase {
        case .subscribing:
            guard demand > .none else {
                phase = .idle
                return nil
            }
            phase = .emitting
            return live.unsafelyUnwrapped.downstream
        case .ended:
            // Cancelled, or finished by a nested emission, inside the callout.
            return nil
        case .emittingInSubscription, .idle, .emitting, .cancelledWhileEmitting:
            impossibleEvent("SynchronousSourceStateMachine: subscriptionCalloutReturned outside the callout")
        }
    }

    /// What the emitting thread may deliver next.
    @usableFromInline
    enum Take {
        /// Nothing (no demand): emitting ends.
        case stop
        /// One element (a unit of demand was taken).
        case one
        /// Every element until cancelled: the demand is unlimited, so there is nothing more to count.
        case unlimited
        /// Cancelled meanwhile: emitting ends, and the caller releases the elements.
        case cancelled
    }

    /// The emitter asks whether it may send one more element (folding in the demand the last one returned); it
    /// gives up emitting when cancelled or out of demand.
    @inlinable
    mutating func takeOne(adding returned: Subscribers.Demand) -> Take {
        switch phase {
        case .emitting, .emittingInSubscription:
            break
        case .cancelledWhileEmitting:
            phase = .ended
            return .cancelled
        case .subscribing, .idle, .ended:
            impossibleEvent("SynchronousSourceStateMachine: takeOne by a thread that does not emit")
        }
        demand += returned
        if demand == .unlimited {
            return .unlimited
        }
        guard demand > .none else {
            switch phase {
            case .emitting: phase = .idle
            case .emittingInSubscription(let thread): phase = .subscribing(thread: thread)
            case .subscribing, .idle, .cancelledWhileEmitting, .ended: break
            }
            return .stop
        }
        demand -= 1
        return .one
    }

    /// The emitting thread delivered the last element: returns the downstream to complete (nil if cancelled
    /// meanwhile) and the source, both to release after unlocking.
    @inlinable
    mutating func finish() -> (Downstream?, Source?) {
        switch phase {
        case .emitting, .emittingInSubscription:
            phase = .ended
            let live = self.live.take().unsafelyUnwrapped
            return (live.downstream, live.source)
        case .cancelledWhileEmitting:
            phase = .ended
            return (nil, nil)
        case .subscribing, .idle, .ended:
            impossibleEvent("SynchronousSourceStateMachine: finish by a thread that does not emit")
        }
    }

    /// The downstream cancelled: returns the downstream and source to release after unlocking, and whether the
    /// caller releases the elements (nobody emits; otherwise the emitting thread does when it stops).
    @inlinable
    mutating func cancel() -> (released: (Downstream, Source)?, releaseElements: Bool) {
        switch phase {
        case .subscribing, .idle:
            phase = .ended
            let live = self.live.take().unsafelyUnwrapped
            return ((live.downstream, live.source), true)
        case .emitting, .emittingInSubscription:
            phase = .cancelledWhileEmitting
            let live = self.live.take().unsafelyUnwrapped
            return ((live.downstream, live.source), false)
        case .cancelledWhileEmitting, .ended:
            return (nil, false)
        }
    }
}
