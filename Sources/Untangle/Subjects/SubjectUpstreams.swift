/// The upstream subscriptions a subject was handed with `send(subscription:)`, kept as Apple's subjects keep them:
/// strongly, once per hand-over (a subscription handed twice is cancelled twice), through the subject's completion,
/// until the subject goes away and cancels each. The one exception are connections made by `subscribe(_:)` (a
/// subject subscribed to a publisher) that have ended: they hold nothing any more and cancelling them does nothing,
/// so they are dropped when the next subscription is added, and a long-lived subject connected and disconnected many
/// times does not grow.
///
/// ```swift
/// var upstreams = SubjectUpstreams()
/// let dropped = upstreams.add(subscription)   // under the subject's lock; release `dropped` after unlocking
/// let toCancel = upstreams.takeAll()           // the subject is going away: cancel each after unlocking
/// ```
///
/// **Demand:** none: the subject decides what to request from them.
/// **Thread safety:** none: a value kept under the subject's lock (``SubjectConnection/hasEnded`` is the only thing
/// it reads from another object, lock-free).
@usableFromInline
package struct SubjectUpstreams {
    /// Every subscription kept, in the order it was handed over.
    @usableFromInline
    package private(set) var all: [Subscription] = []

    @inlinable
    package init() {}

    /// Keeps `subscription`; returns the ended connections it dropped, for the caller to release after unlocking.
    @inlinable
    package mutating func add(_ subscription: Subscription) -> [Subscription] {
        var dropped: [Subscription] = []
        all.removeAll { upstream in
            guard let connection = upstream as? SubjectConnection, connection.hasEnded else { return false }
            dropped.append(upstream)
            return true
        }
        all.append(subscription)
        return dropped
    }

    /// Takes every subscription kept (the subject is going away: each is to be cancelled after unlocking).
    @inlinable
    package mutating func takeAll() -> [Subscription] {
        defer { all = [] }
        return all
    }
}

/// A connection from a publisher to a subject (what `subscribe(_:)` hands the subject as its upstream subscription)
/// that can tell, without a lock, whether it has ended: cancelled, or completed by the publisher.
///
/// **Thread safety:** ``hasEnded`` may be read from any thread, also under a subject's lock.
@usableFromInline
package protocol SubjectConnection: AnyObject {
    /// Whether the connection was cancelled or its publisher completed: it holds nothing and ignores `cancel()`.
    var hasEnded: Bool { get }
}
