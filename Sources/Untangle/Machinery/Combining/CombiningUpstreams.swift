import UntangleSync

/// What zip and combineLatest do after unlocking that no other fan-in does: the forwarder's loop
/// (``forward(to:next:)``), whose callouts are their ``FanIn``'s emitter's (it checks them).
///
/// ```swift
/// CombiningUpstreams.forward(to: fanIn.emitter) { nextStep() }
/// ```
///
/// **Demand:** none of its own: it hands over the outputs the state machine formed within the demand it counted.
/// **Thread safety:** call with no lock held: it calls the downstream's emitter.
@usableFromInline
enum CombiningUpstreams {}

/// The forwarder's next step, with the output already taken out under the lock (zip's and combineLatest's forward
/// loops, ``CombiningUpstreams/forward(to:next:)``).
///
/// ```swift
/// let step: CombiningStep<(Int, String)> = .value((1, "a"))
/// ```
///
/// **Thread safety:** a value.
@usableFromInline
enum CombiningStep<Output> {
    /// Hand this output to the emitter.
    case value(Output)
    /// Every output was handed over: finish the emitter (after its queued values).
    case finish
    /// Nothing to forward now; the caller is no longer the forwarder.
    case idle
}

extension CombiningUpstreams {
    // Only one thread forwards at a time (the operator's state hands the role over), so outputs reach the emitter in
    // the order they formed. Offering never waits for another thread: if another thread is delivering to the
    // downstream, the emitter queues the output for it and returns.
    /// The forwarder's loop, shared by zip and combineLatest: `next` decides the next step (under the operator's
    /// lock, or through its forwarder word) and the loop acts on it with no lock held.
    @inlinable
    static func forward<Downstream: Subscriber>(
        to emitter: Emitter<DemandRelay<Downstream>>, next: () -> CombiningStep<Downstream.Input>
    ) {
        while true {
            switch next() {
            case .value(let output):
                emitter.offer(output)
            case .finish:
                emitter.complete(.finished, order: .afterQueuedValues)
                return
            case .idle:
                return
            }
        }
    }
}

/// The forwarder role of a combining operator kept in the word of its ``LockedBoxWithWord``, so that a forwarder with
/// nothing more to do gives the role up with one compare-exchange instead of a second critical section.
///
/// The word is ``idle`` (nobody forwards), ``forwarding`` (a thread forwards and nothing waits for it under the
/// lock) or ``signalled`` (a thread forwards and must look under the lock: an output was queued, or the operator
/// started finishing). Every change other than the forwarder's own is made under the lock; the forwarder, outside the
/// lock, only exchanges ``forwarding`` for ``idle``. So the word reads ``forwarding`` only while nothing is queued:
/// a thread that finds it ``idle`` under the lock claims the role, and its output is the next in order.
///
/// ```swift
/// let claimed = state.withCriticalSection { state, word in CombiningForwarder.claimOrSignal(word) }
/// ```
///
/// **Thread safety:** ``claimOrSignal(_:lookFirst:)``, ``took(_:hasMore:)`` and ``giveUp(_:)`` under the operator's
/// lock; ``tryRelease(_:)`` by the forwarder, without it.
@usableFromInline
enum CombiningForwarder {
    @usableFromInline static var idle: Int { 0 }
    @usableFromInline static var forwarding: Int { 1 }
    @usableFromInline static var signalled: Int { 2 }

    /// Under the lock: something needs the forwarder (an output formed or was queued, or the finish). Returns true
    /// when nobody forwarded: the caller is the forwarder now; false when another thread forwards: it is told to look
    /// under the lock, and the caller leaves the output queued for it.
    @inlinable
    /// `lookFirst`: the new forwarder's first step is under the lock (the finish), not an output it holds.
    static func claimOrSignal(_ word: WordAccess, lookFirst: Bool = false) -> Bool {
        while true {
            switch word.load() {
            case idle:
                if word.compareExchange(expected: idle, desired: lookFirst ? signalled : forwarding) { return true }
            case forwarding:
                if word.compareExchange(expected: forwarding, desired: signalled) { return false }
            default:
                return false
            }
        }
    }

    /// Under the lock, by the forwarder that has just taken an output there: `hasMore` (something still queued, or
    /// a finish to come) keeps it signalled, so its next step is under the lock again; otherwise its next step may be
    /// the fast release.
    @inlinable
    static func took(_ word: WordAccess, hasMore: Bool) {
        word.store(hasMore ? signalled : forwarding)
    }

    /// Under the lock, by the forwarder: it gives the role up (nothing to forward, or the finish taken).
    @inlinable
    static func giveUp(_ word: WordAccess) {
        word.store(idle)
    }

    /// Outside the lock, by the forwarder: gives the role up if nothing waits for it (true); false: it must look
    /// under the lock. Always false where the word is not lock-free.
    @inlinable
    static func tryRelease<Value>(_ box: LockedBoxWithWord<Value>) -> Bool {
        guard LockedBoxWithWord<Value>.hasLockFreeWord else { return false }
        return box.compareExchangeWord(expected: forwarding, desired: idle)
    }
}
