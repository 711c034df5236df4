import Untangle

/// The pure state machine of a groupBy: its phase (the outer subscriber there, gone while subscribed groups still
/// run, or ended) with the upstream subscription, and the live groups by key, each with its own phase (waiting for its
/// one subscriber, or subscribed). It never calls out.
///
/// The upstream stays subscribed while the outer subscriber or any subscribed group is live.
///
/// **Demand:** the upstream is asked for `.unlimited`; demand for groups and within groups is applied by their
/// emitters.
/// **Thread safety:** none: always mutated under the operator's lock.
struct GroupByStateMachine<Key: Hashable, Group> {
    /// A live group and its phase.
    struct Entry {
        /// Whether the group has its one subscriber (a group nobody subscribed to ends with the outer subscriber).
        enum Phase {
            case awaitingSubscriber
            case subscribed
        }

        let id: Int
        let group: Group
        var phase = Phase.awaitingSubscriber

        var isSubscribed: Bool {
            if case .subscribed = phase { return true }
            return false
        }
    }

    /// The operator's phase, each with the upstream subscription once it arrived.
    enum Phase {
        /// The outer subscriber is there: new keys create groups.
        case outerLive(upstream: Subscription?)
        /// The outer subscriber cancelled; groups with a subscriber still receive values (new keys are dropped)
        /// until the last of them cancels.
        case outerCancelled(upstream: Subscription?)
        /// Ended (the upstream completed, or nothing is live any more): everything is dropped and refused.
        case terminated

        var upstream: Subscription? {
            switch self {
            case .outerLive(let upstream), .outerCancelled(let upstream): return upstream
            case .terminated: return nil
            }
        }
    }

    private var groups: [Key: Entry] = [:]
    private var nextID = 0
    // The phase last: its tag byte packs after the words instead of padding between them.
    private var phase = Phase.outerLive(upstream: nil)

    /// Whether the outer subscriber is still there (and the operator has not ended).
    var outerIsLive: Bool {
        if case .outerLive = phase { return true }
        return false
    }

    /// Whether the operator has ended.
    var isTerminated: Bool {
        if case .terminated = phase { return true }
        return false
    }

    /// The upstream's subscription arrived: false if it must be cancelled instead.
    mutating func subscribed(_ subscription: Subscription) -> Bool {
        switch phase {
        case .outerLive(nil): phase = .outerLive(upstream: subscription)
        case .outerCancelled(nil): phase = .outerCancelled(upstream: subscription)
        case .outerLive, .outerCancelled, .terminated: return false
        }
        return true
    }

    /// Where a value with `key` goes: an existing group, a new group to create with the given id (when the outer
    /// subscriber is live), or nowhere.
    enum Route {
        case existing(Group)
        case create(id: Int)
        case drop
    }

    mutating func route(_ key: Key) -> Route {
        guard !isTerminated else { return .drop }
        if let entry = groups[key] { return .existing(entry.group) }
        guard outerIsLive else { return .drop }
        nextID += 1
        return .create(id: nextID)
    }

    /// Registers a group created for `route(_:)`'s `.create`: false if the outer subscriber left (or the operator
    /// ended) in between, in which case the group is dropped with its value.
    mutating func add(_ group: Group, key: Key, id: Int) -> Bool {
        guard !isTerminated, outerIsLive else { return false }
        groups[key] = Entry(id: id, group: group)
        return true
    }

    /// Group `id` got its subscriber.
    mutating func groupSubscribed(_ key: Key, id: Int) {
        guard let entry = groups[key], entry.id == id else { return }
        guard case .awaitingSubscriber = entry.phase else {
            impossibleEvent("GroupByStateMachine: groupSubscribed twice for one group")
        }
        groups[key]?.phase = .subscribed
    }

    /// Group `id`'s subscriber cancelled: returns the upstream subscription to cancel if nothing is live any more.
    mutating func groupCancelled(_ key: Key, id: Int) -> Subscription? {
        guard groups[key]?.id == id else { return nil }
        groups[key] = nil
        return endIfIdle()
    }

    /// The outer subscriber cancelled: groups nobody subscribed to are handed back (to be finished); the upstream
    /// subscription is returned if no subscribed group remains.
    mutating func outerCancelled() -> (unsubscribed: [Group], cancel: Subscription?) {
        guard case .outerLive(let upstream) = phase else { return ([], nil) }
        phase = .outerCancelled(upstream: upstream)
        let unsubscribed = groups.values.filter { !$0.isSubscribed }.map(\.group)
        groups = groups.filter { $0.value.isSubscribed }
        return (unsubscribed, endIfIdle())
    }

    private mutating func endIfIdle() -> Subscription? {
        guard case .outerCancelled(let upstream) = phase, groups.isEmpty else { return nil }
        phase = .terminated
        return upstream
    }

    /// The upstream completed: returns every group to complete (nil if the operator had already ended).
    mutating func upstreamCompleted() -> [Group]? {
        guard !isTerminated else { return nil }
        phase = .terminated
        defer { groups = [:] }
        return groups.values.map(\.group)
    }
}
