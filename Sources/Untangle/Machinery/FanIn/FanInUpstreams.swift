/// The upstreams of a fan-in whose sources are numbered up front (merge, amb, zip, combineLatest): where each one
/// stands (an ``UpstreamSlot``) and the demand asked of them so far. Every request goes to every subscribed upstream;
/// one that subscribes late is asked for the total so far.
///
/// ```swift
/// var upstreams = FanInUpstreams(count: 2)
/// let demand = upstreams.admit(subscription, at: 0)     // the total so far, or nil: cancel it
/// let forwardTo = upstreams.request(.max(1))            // every subscribed upstream
/// let toCancel = upstreams.endAll()                      // the operator ended
/// ```
///
/// **Demand:** `requested` is the total the downstream asked for; each upstream is asked for all of it once.
/// **Thread safety:** none: a value inside a state machine, mutated under its operator's lock.
@usableFromInline
package struct FanInUpstreams {
    /// Where each upstream stands.
    @usableFromInline package var slots: [UpstreamSlot]
    /// What the downstream asked for so far.
    @usableFromInline package var requested = Subscribers.Demand.none

    /// `count` upstreams, none subscribed yet.
    @inlinable
    package init(count: Int) {
        slots = Array(repeating: .awaiting, count: count)
    }

    /// The number of upstreams.
    @inlinable
    package var count: Int { slots.count }

    /// Upstream `index`'s subscription arrived: takes it and returns the demand to ask of it (the total so far), or
    /// nil to cancel it (a second subscription, or one after this upstream or the operator ended).
    @inlinable
    package mutating func admit(_ subscription: Subscription, at index: Int) -> Subscribers.Demand? {
        checkIndex(index, "admit")
        return slots[index].accept(subscription) ? requested : nil
    }

    /// The downstream asked for `demand` more: adds it to the total and returns every subscribed upstream.
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        requested += demand
        return slots.compactMap(\.subscription)
    }

    /// As ``request(_:)``, leaving out upstream `sender`'s subscription (it takes the demand another way).
    @inlinable
    package mutating func request(_ demand: Subscribers.Demand, except sender: Int) -> [Subscription] {
        requested += demand
        return slots.indices.compactMap { $0 == sender ? nil : slots[$0].subscription }
    }

    /// Whether upstream `index` has ended (completed, or the operator ended).
    @inlinable
    package func isEnded(at index: Int) -> Bool {
        checkIndex(index, "isEnded")
        return slots[index].isEnded
    }

    /// Upstream `index` completed: ends its slot and returns the subscription it held, if any.
    @inlinable
    @discardableResult
    package mutating func end(at index: Int) -> Subscription? {
        checkIndex(index, "end")
        return slots[index].end()
    }

    /// Ends every slot; returns the subscriptions they held, leaving out upstream `kept`'s slot, which stays as it
    /// is (the winner of a race), if given.
    @inlinable
    package mutating func endAll(except kept: Int? = nil) -> [Subscription] {
        var ended: [Subscription] = []
        for index in slots.indices where index != kept {
            if let subscription = slots[index].end() {
                ended.append(subscription)
            }
        }
        return ended
    }

    // Indices come from the operator's own inners, numbered below `count`: any other is an inconsistency.
    @inlinable
    func checkIndex(_ index: Int, _ event: StaticString) {
        if index < 0 || index >= slots.count {
            fatalError("FanInUpstreams: \(event)(at: \(index)) with \(slots.count) upstreams")
        }
    }
}
