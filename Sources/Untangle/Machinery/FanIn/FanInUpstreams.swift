/// The upstreams of a fan-in whose sources are numbered up front (merge, amb, zip, combineLatest): where each one
/// stands (awaiting its subscription, subscribed, ended), its subscription, and the demand asked of them so far.
/// Every request goes to every subscribed upstream; one that subscribes late is asked for the total so far.
///
/// ```swift
/// var upstreams = FanInUpstreams(count: 2)
/// let demand = upstreams.admit(subscription, at: 0)     // the total so far, or nil: cancel it
/// let forwardTo = upstreams.request(.max(1))            // every subscribed upstream
/// let toCancel = upstreams.endAll()                      // the operator ended
/// let ending = upstreams.ending(completed: 1)           // or: cancel the others, release upstream 1's
/// ```
///
/// **Demand:** `requested` is the total the downstream asked for; each upstream is asked for all of it once.
/// **Thread safety:** none: a value inside a state machine, mutated under its operator's lock.
@usableFromInline
package struct FanInUpstreams {
    /// Where one upstream stands (its subscription, while subscribed, is in ``subscriptions``).
    @usableFromInline
    package enum Standing {
        /// Its subscription has not arrived yet.
        case awaiting
        /// Subscribed: requests are forwarded to it.
        case subscribed
        /// Completed, or the operator ended: a later subscription is cancelled.
        case ended
    }

    // Performance: the standings apart from the subscriptions, so that the per-value check (`isEnded(at:)`, zip's and
    // combineLatest's) reads one byte instead of copying an existential `Subscription` out of an `UpstreamSlot`.
    /// Where each upstream stands.
    @usableFromInline package private(set) var standings: [Standing]
    /// Each subscribed upstream's subscription (nil otherwise).
    @usableFromInline package private(set) var subscriptions: [Subscription?]
    /// What the downstream asked for so far.
    @usableFromInline package private(set) var requested = Subscribers.Demand.none

    /// `count` upstreams, none subscribed yet.
    @inlinable
    package init(count: Int) {
        standings = Array(repeating: .awaiting, count: count)
        subscriptions = Array(repeating: nil, count: count)
    }

    /// The number of upstreams.
    @inlinable
    package var count: Int { standings.count }

    /// Upstream `index`'s subscription arrived: takes it and returns the demand to ask of it (the total so far), or
    /// nil to cancel it (a second subscription, or one after this upstream or the operator ended).
    @inlinable
    package mutating func admit(_ subscription: Subscription, at index: Int) -> Subscribers.Demand? {
        check(index, "admit")
        guard standings[index] == .awaiting else { return nil }
        standings[index] = .subscribed
        subscriptions[index] = subscription
        return requested
    }

    /// The downstream asked for `demand` more: adds it to the total and returns every subscribed upstream.
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        requested += demand
        return subscriptions.compactMap { $0 }
    }

    /// As ``request(_:)``, leaving out upstream `sender`'s subscription (it takes the demand another way).
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand, except sender: Int) -> [Subscription] {
        requested += demand
        return subscriptions.indices.compactMap { $0 == sender ? nil : subscriptions[$0] }
    }

    /// Whether upstream `index` has ended (completed, or the operator ended).
    @inlinable
    package func isEnded(at index: Int) -> Bool {
        check(index, "isEnded")
        return standings[index] == .ended
    }

    /// Upstream `index` completed: ends it and returns the subscription it held, if any.
    @inlinable
    @discardableResult
    package mutating func end(at index: Int) -> Subscription? {
        check(index, "end")
        standings[index] = .ended
        defer { subscriptions[index] = nil }
        return subscriptions[index]
    }

    /// Ends every upstream; returns the subscriptions they held, leaving out upstream `kept`, which stays as it is
    /// (the winner of a race), if given.
    @inlinable
    package mutating func endAll(except kept: Int? = nil) -> [Subscription] {
        var ended: [Subscription] = []
        for index in standings.indices where index != kept {
            standings[index] = .ended
            if let subscription = subscriptions[index] {
                ended.append(subscription)
                subscriptions[index] = nil
            }
        }
        return ended
    }

    /// The operator ends: ends every upstream, to cancel those still subscribed, except upstream `completed`, if
    /// given, whose subscription is only released (it completed). Nil when every upstream had already ended.
    @inlinable
    package mutating func ending(completed: Int? = nil) -> FanInEnding? {
        guard standings.contains(where: { $0 != .ended }) else { return nil }
        let released = completed.flatMap { end(at: $0) }
        return FanInEnding(cancel: endAll(), released: released)
    }

    // Indices come from the operator's own inners, numbered below `count`: any other is an inconsistency.
    @inlinable
    func check(_ index: Int, _ event: StaticString) {
        if index < 0 || index >= standings.count {
            FanInUpstreams.outOfRange(index, count: standings.count, event)
        }
    }

    @usableFromInline
    @inline(never)
    static func outOfRange(_ index: Int, count: Int, _ event: StaticString) -> Never {
        impossibleEvent("FanInUpstreams: \(event)(at: \(index)) with \(count) upstreams")
    }
}
