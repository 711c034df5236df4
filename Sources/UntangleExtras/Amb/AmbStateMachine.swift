import Untangle

/// The pure state machine of an amb: the sources' subscriptions, the winner once one has sent anything, and the
/// demand requested so far. It never calls out.
///
/// **Demand:** until a winner is known, every request goes to every source (a source that subscribes late is
/// asked for the total so far); afterwards only to the winner. Losers' values are dropped, so the downstream never
/// receives more than it asked for.
/// **Thread safety:** none: always mutated under the amb's lock.
struct AmbStateMachine: FanInStateMachine {
    private var subscriptions: [Subscription?]
    private(set) var winner: Int?
    private var requested = Subscribers.Demand.none
    private(set) var isTerminated = false

    init(count: Int) {
        subscriptions = Array(repeating: nil, count: count)
    }

    /// Source `index`'s subscription arrived: returns the demand to request (nil: cancel it instead).
    mutating func innerSubscribed(_ index: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, subscriptions[index] == nil, winner == nil || winner == index else { return nil }
        subscriptions[index] = subscription
        return requested
    }

    /// Source `index` sent a signal: returns whether it is to be delivered, and the losers to cancel if this signal
    /// decided the race.
    mutating func signal(from index: Int) -> (deliver: Bool, losers: [Subscription]) {
        guard !isTerminated else { return (false, []) }
        if let winner { return (winner == index, []) }
        winner = index
        var losers: [Subscription] = []
        for (other, subscription) in subscriptions.enumerated() where other != index {
            if let subscription { losers.append(subscription) }
            subscriptions[other] = nil
        }
        return (true, losers)
    }

    /// The downstream asked for more: returns the subscriptions to forward it to.
    mutating func request(_ demand: Subscribers.Demand) -> [Subscription] {
        guard !isTerminated else { return [] }
        requested += demand
        if let winner { return subscriptions[winner].map { [$0] } ?? [] }
        return subscriptions.compactMap { $0 }
    }

    /// The downstream cancelled: ends the amb and returns the subscriptions to cancel (nil if it had already ended).
    mutating func terminate() -> [Subscription]? {
        terminate(completed: nil)
    }

    /// Ends the amb: returns the subscriptions to cancel (nil if it had already ended), except `completed`'s.
    mutating func terminate(completed: Int?) -> [Subscription]? {
        guard !isTerminated else { return nil }
        isTerminated = true
        defer { subscriptions = subscriptions.map { _ in nil } }
        return subscriptions.enumerated().compactMap { $0.offset == completed ? nil : $0.element }
    }
}
