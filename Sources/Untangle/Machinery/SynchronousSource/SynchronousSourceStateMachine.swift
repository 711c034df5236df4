/// The pure state machine of a ``SynchronousSourceSubscription``: who emits, how much demand is left, and whether
/// the subscription has ended. It never calls out; each method returns what the caller should do after unlocking.
///
/// **Demand:** `demand` is what the downstream requested and has not received; each element consumes one.
/// **Thread safety:** none: always mutated under the subscription's lock.
@usableFromInline
struct SynchronousSourceStateMachine<Downstream: Subscriber, Source> {
    @usableFromInline var downstream: Downstream?
    /// What the subscription describes and reflects while it runs; taken out (to be released after unlocking) when
    /// it finishes or is cancelled.
    @usableFromInline var source: Source?
    @usableFromInline var demand = Subscribers.Demand.none
    /// A thread is running the emission loop; everybody else only adds demand.
    @usableFromInline var emitting = false
    /// The iterator and read-ahead element have been released (or handed to the thread releasing them).
    @usableFromInline var elementsReleased = false
    /// The thread delivering `receive(subscription:)`, while it does.
    @usableFromInline var subscribingThread: ThreadID?

    /// The subscription is created on the thread that will deliver `receive(subscription:)` to the downstream, so
    /// the callout is marked as in progress from the start.
    @inlinable
    init(downstream: Downstream, source: Source, subscribingThread: ThreadID) {
        self.downstream = downstream
        self.source = source
        self.subscribingThread = subscribingThread
    }

    /// Adds demand; returns the downstream if the caller must become the emitter.
    //
    // A request made on another thread while `receive(subscription:)` is still running (the subscriber handed its
    // subscription to that thread) only adds demand: emitting there would run `receive(_:)` concurrently with the
    // unfinished `receive(subscription:)`. The subscribing thread emits it when the callout returns. A request from
    // inside the callout on the subscribing thread emits at once, nested, as in Apple's Combine.
    @inlinable
    mutating func request(_ more: Subscribers.Demand, on thread: ThreadID) -> Downstream? {
        guard let downstream else { return nil }
        demand += more
        guard !emitting else { return nil }
        if let subscribing = subscribingThread, subscribing != thread { return nil }
        emitting = true
        return downstream
    }

    /// `receive(subscription:)` returned: returns the downstream if demand requested meanwhile from another thread
    /// must now be emitted by the caller.
    @inlinable
    mutating func subscriptionCalloutReturned() -> Downstream? {
        subscribingThread = nil
        guard let downstream, !emitting, demand > .none else { return nil }
        emitting = true
        return downstream
    }

    /// What the emitting thread may deliver next.
    @usableFromInline
    enum Take {
        /// Nothing (no demand, or cancelled): emitting ends.
        case stop
        /// One element (a unit of demand was taken).
        case one
        /// Every element until cancelled: the demand is unlimited, so there is nothing more to count.
        case unlimited
    }

    /// The emitter asks whether it may send one more element (folding in the demand the last one returned); it
    /// gives up emitting when cancelled or out of demand.
    @inlinable
    mutating func takeOne(adding returned: Subscribers.Demand) -> Take {
        guard downstream != nil else {
            emitting = false
            return .stop
        }
        demand += returned
        if demand == .unlimited {
            return .unlimited
        }
        guard demand > .none else {
            emitting = false
            return .stop
        }
        demand -= 1
        return .one
    }

    @inlinable
    mutating func finish() -> (Downstream?, Source?) {
        emitting = false
        elementsReleased = true
        return (downstream.take(), source.take())
    }

    /// Once the subscription is over and nobody emits, exactly one caller gets to release the elements.
    @inlinable
    mutating func claimElementRelease() -> Bool {
        guard downstream == nil, !emitting, !elementsReleased else { return false }
        elementsReleased = true
        return true
    }

    @inlinable
    mutating func cancel() -> (Downstream?, Source?) {
        (downstream.take(), source.take())
    }
}
