/// Whose turn it is to call the downstream, for an operator whose downstream signals come from several sources
/// (an upstream and a trigger) and that must not hold its lock while calling out.
///
/// A source takes the turn under the operator's lock before calling the downstream and gives it back, under the
/// lock again, when the callout returns. A completion that finds the turn taken by another thread is queued, and
/// the thread holding the turn delivers it when its own callout returns; a signal from the thread that holds the
/// turn (a reentrant, nested signal, as when the downstream's `request` makes the upstream send at once) is
/// delivered at once, as Combine would.
///
/// ```swift
/// let deliver = state.withCriticalSection { $0.turn.enter(.current) }
/// if deliver { _ = downstream.receive(value) }
/// while let completion = state.withCriticalSection({ $0.turn.leave() }) { downstream.receive(completion: completion) }
/// ```
///
/// **Thread safety:** none: always mutated under the operator's lock.
struct DownstreamTurn<Failure: Error> {
    private var owner: ThreadID?
    private var depth = 0
    private var queued: [Subscribers.Completion<Failure>] = []

    init() {}

    /// Whether no callout to the downstream is in progress.
    var isIdle: Bool { depth == 0 }

    /// Takes the turn: true if the caller may call the downstream now (the turn was free, or the calling thread
    /// holds it already); the caller must then call ``leave()`` after the callout. False: another thread is calling
    /// the downstream.
    mutating func enter(_ thread: ThreadID) -> Bool {
        if depth == 0 {
            owner = thread
            depth = 1
            return true
        }
        guard owner == thread else { return false }
        depth += 1
        return true
    }

    /// Takes the turn for a completion: true if the turn was free and the caller delivers it now (and calls
    /// ``leave()`` after); false if it was queued for the callout in progress, even one on the calling thread: a
    /// completion is never nested inside another signal, it follows it.
    mutating func enter(_ thread: ThreadID, completion: Subscribers.Completion<Failure>) -> Bool {
        if depth == 0 {
            return enter(thread)
        }
        queued.append(completion)
        return false
    }

    /// The callout returned. Returns a queued completion the caller must now deliver (it keeps the turn and calls
    /// `leave()` again afterwards), or nil when the turn is given back (or stays with an enclosing callout).
    mutating func leave() -> Subscribers.Completion<Failure>? {
        if depth == 1, !queued.isEmpty {
            return queued.removeFirst()
        }
        depth -= 1
        if depth == 0 {
            owner = nil
        }
        return nil
    }
}
