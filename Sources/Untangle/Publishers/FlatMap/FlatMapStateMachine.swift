// `@usableFromInline` so that the `@inlinable` ``FlatMapSubscription`` can call it; the state machine itself is not
// generic and stays compiled once, here.
/// The pure state machine of a flatMap: the upstream subscription, the live inner publishers and their
/// subscriptions, the downstream's outstanding demand, and who has finished. It never calls out: every method
/// returns what the caller must do after unlocking.
///
/// **Demand:** upstream is asked for `maxPublishers` values when it subscribes and for one more each time an inner
/// finishes (with `.unlimited`, once). `demand` is what the downstream asked for and no inner has sent yet: an inner
/// is asked for it when its subscription arrives, and every later downstream request is forwarded to every live
/// inner. Values beyond the downstream's demand wait in the emitter, so what is buffered never exceeds what the
/// inners were asked for.
/// **Thread safety:** none: always mutated under the flatMap's lock.
@usableFromInline
struct FlatMapStateMachine {
    private enum Upstream {
        case awaiting
        case subscribed(Subscription)
        case finished
    }

    private var upstream = Upstream.awaiting
    /// Live inners in creation order (so demand is forwarded oldest first); the subscription is nil until it
    /// arrives.
    private var inners: [(id: Int, subscription: Subscription?)] = []
    private var nextInnerID = 0
    @usableFromInline private(set) var demand = Subscribers.Demand.none
    private let maxPublishers: Subscribers.Demand
    @usableFromInline private(set) var isTerminated = false

    @usableFromInline
    init(maxPublishers: Subscribers.Demand) {
        self.maxPublishers = maxPublishers
    }

    /// The upstream subscription arrived: returns the demand to request from it (nil: cancel it).
    @usableFromInline
    mutating func upstreamSubscribed(_ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, case .awaiting = upstream else { return nil }
        upstream = .subscribed(subscription)
        return maxPublishers
    }

    /// An upstream value produced a new inner publisher: returns its id (nil: the flatMap has ended; do not
    /// subscribe to it).
    @usableFromInline
    mutating func innerCreated() -> Int? {
        guard !isTerminated else { return nil }
        let id = nextInnerID
        nextInnerID += 1
        inners.append((id, nil))
        return id
    }

    /// What an upstream value does when the inner publishers are `Just`s (see `FlatMapSubscription.receiveJust`).
    @usableFromInline
    enum JustAction {
        /// The flatMap has ended: the value is ignored (the transform is not called).
        case ignore
        /// The downstream has demand: deliver the Just's value now (one unit of demand was taken, as an inner's
        /// delivery takes it) and return `upstreamDemand` to the upstream (the slot the Just would have held under
        /// `maxPublishers` is free again at once). `steady`: demand and `maxPublishers` are both unlimited, so
        /// every later Just gets the same answer (until the flatMap ends) and the caller may stop asking.
        case deliver(upstreamDemand: Subscribers.Demand, steady: Bool)
        /// No downstream demand: subscribe to the Just like to any inner (registered with this id), so that it
        /// waits for demand while holding its slot.
        case subscribe(id: Int)
    }

    /// An upstream value arrived and the inner will be a `Just`: a Just delivers its one value as soon as it has
    /// demand and finishes right after, so when the downstream has demand the whole inner lifecycle (created,
    /// subscribed, delivered, finished) collapses into this one transition.
    @usableFromInline
    mutating func justArrived() -> JustAction {
        guard !isTerminated else { return .ignore }
        guard demand > .none else { return .subscribe(id: innerCreated()!) }
        innerDelivered()
        switch upstream {
        case .subscribed where maxPublishers != .unlimited:
            return .deliver(upstreamDemand: .max(1), steady: false)
        default:
            return .deliver(upstreamDemand: .none, steady: demand == .unlimited && maxPublishers == .unlimited)
        }
    }

    /// An inner's subscription arrived: returns the demand to request from it (nil: cancel it instead).
    @usableFromInline
    mutating func innerSubscribed(_ id: Int, _ subscription: Subscription) -> Subscribers.Demand? {
        guard !isTerminated, let index = inners.firstIndex(where: { $0.id == id }), inners[index].subscription == nil
        else { return nil }
        inners[index].subscription = subscription
        return demand
    }

    /// An inner delivered a value: it uses up one unit of the downstream's demand.
    @usableFromInline
    mutating func innerDelivered() {
        if demand > .none {
            demand -= 1
        }
    }

    /// The downstream asked for more (by request or by returning demand): returns the inner subscriptions to
    /// forward the request to.
    @usableFromInline
    mutating func request(_ more: Subscribers.Demand) -> [Subscription] {
        guard !isTerminated else { return [] }
        demand += more
        return inners.compactMap(\.subscription)
    }

    /// What to do when an inner or the upstream finishes.
    @usableFromInline
    enum FinishAction {
        case none
        /// Ask the upstream for one more value (a slot under `maxPublishers` opened).
        case requestOneMore(Subscription)
        /// Everything finished: finish the downstream.
        case finish
    }

    /// An inner finished. Also returns its subscription, to be released after unlocking.
    @usableFromInline
    mutating func innerFinished(_ id: Int) -> (FinishAction, released: Subscription?) {
        guard !isTerminated, let index = inners.firstIndex(where: { $0.id == id }) else { return (.none, nil) }
        let slot = inners.remove(at: index).subscription
        switch upstream {
        case .finished where inners.isEmpty:
            isTerminated = true
            return (.finish, slot)
        case .subscribed(let subscription) where maxPublishers != .unlimited:
            return (.requestOneMore(subscription), slot)
        default:
            return (.none, slot)
        }
    }

    /// The upstream finished: true if no inner is live (the flatMap finishes now).
    @usableFromInline
    mutating func upstreamFinished() -> Bool {
        guard !isTerminated else { return false }
        upstream = .finished
        if inners.isEmpty {
            isTerminated = true
            return true
        }
        return false
    }

    /// A failure (upstream or inner) or the downstream's cancel: ends the flatMap and returns every subscription
    /// to cancel (nil if it had already ended). A source that has just failed is not cancelled: pass the failing
    /// inner's id, or `upstreamFailed`.
    @usableFromInline
    mutating func terminate(failedInner: Int? = nil, upstreamFailed: Bool = false) -> [Subscription]? {
        guard !isTerminated else { return nil }
        isTerminated = true
        var toCancel = inners.filter { $0.id != failedInner }.compactMap(\.subscription)
        if !upstreamFailed, case .subscribed(let subscription) = upstream {
            toCancel.append(subscription)
        }
        upstream = .finished
        inners = []
        return toCancel
    }
}
